import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import {
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  zeroAddress,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { authorizerTypedData } from '../src/sdk/x402/evm/auth-capture/authorizer.js'
import { AUTH_CAPTURE_V1_1, authCaptureEscrowAbi } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import { crash, rpc, type ServeProcess, spawnServe, stopServe, untilStateWritten } from './helpers/serve-crash.js'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-crash-auth-capture-'))
let serve: ServeProcess | undefined
afterAll(async () => {
  if (serve) await stopServe(serve)
  rmSync(dataDir, { recursive: true, force: true })
})

const post = async (api: string, path: string, body: unknown) => {
  const res = await fetch(`${api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}
const call = async <T>(
  url: string,
  to: Address,
  abi: readonly unknown[],
  functionName: string,
  args: readonly unknown[],
) => {
  const data = await rpc<Hex>(url, 'eth_call', [
    { to, data: encodeFunctionData({ abi, functionName, args } as never) },
    'latest',
  ])
  return decodeFunctionResult({ abi, functionName, data } as never) as T
}

describe('an auth-capture settle answered is on chain once', () => {
  it('kill -9 after an answered authorize and after an answered capture: after each restart the escrow shows it, and a retry neither holds nor captures twice', async () => {
    serve = await spawnServe(dataDir)
    const supported = (await (await fetch(`${serve.api}/facilitator/supported`)).json()) as any
    const chainId = Number(await rpc<Hex>(serve.rpc['local-base']!, 'eth_chainId'))
    const network = `eip155:${chainId}`
    const kind = supported.kinds.find((k: any) => k.scheme === 'auth-capture' && k.network === network)
    const usdc = getAddress(kind.extra.asset) as Address
    const payer = privateKeyToAccount(generatePrivateKey())
    const authorizer = privateKeyToAccount(generatePrivateKey())
    const seller = privateKeyToAccount(generatePrivateKey()).address
    expect((await post(serve.api, '/api/local/faucet', { to: payer.address, token: 'USDC', amount: '1' })).status).toBe(
      200,
    )
    await untilStateWritten(serve, dataDir)

    const now = Math.floor(Date.now() / 1000)
    const r = {
      scheme: 'auth-capture',
      network,
      asset: usdc,
      amount: '1000',
      payTo: seller,
      maxTimeoutSeconds: 600,
      extra: {
        name: kind.extra.name,
        version: kind.extra.version,
        captureAuthorizer: kind.extra.captureAuthorizer,
        operatorType: 'delegated',
        receiverAuthorizer: authorizer.address,
        captureDeadline: now + 7200,
        refundDeadline: now + 14_400,
        feeRecipient: zeroAddress,
        minFeeBps: 0,
        maxFeeBps: 0,
        paymentFlow: 'escrow',
      },
    }
    const client = new AuthCaptureEvmScheme({
      address: payer.address,
      signTypedData: (m: any) => payer.signTypedData(m),
    } as never)
    const { payload } = await client.createPaymentPayload(2, r as never)
    const body = (p: unknown) => ({
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: r, payload: p },
      paymentRequirements: r,
    })
    const held = await post(serve.api, '/facilitator/settle', body(payload))
    expect(held.body.success, JSON.stringify(held.body)).toBe(true)
    const hash = held.body.extra.paymentInfoHash as Hex
    await new Promise((resolve) => setTimeout(resolve, 200))
    await crash(serve, dataDir)

    serve = await spawnServe(dataDir)
    const state = async () =>
      call<readonly [boolean, bigint, bigint]>(
        serve!.rpc['local-base']!,
        AUTH_CAPTURE_V1_1.escrow,
        authCaptureEscrowAbi['v1.1'],
        'paymentState',
        [hash],
      )
    const balance = async (a: Address) => call<bigint>(serve!.rpc['local-base']!, usdc, erc20Abi, 'balanceOf', [a])
    expect(await state()).toEqual([true, 1000n, 0n])
    expect((await post(serve.api, '/facilitator/settle', body(payload))).body.errorReason).toBe('duplicate_settlement')
    expect(await balance(payer.address)).toBe(1_000_000n - 1000n)
    // The embedded chain keeps what the restart replayed only once its state file holds it (a real chain keeps it anyway).
    await untilStateWritten(serve, dataDir)

    const sig = await authorizer.signTypedData(
      authorizerTypedData(chainId, kind.extra.captureAuthorizer, {
        type: 'capture',
        version: 'v1.1',
        paymentInfoHash: hash,
        amount: 1000n,
        fee: 0n,
        feeReceiver: zeroAddress,
        expectedCapturableAmount: 1000n,
        expectedRefundableAmount: 0n,
      }) as never,
    )
    const capture = body({
      type: 'capture',
      paymentInfo: held.body.extra.paymentInfo,
      saltNonce: (payload as any).saltNonce,
      amount: '1000',
      feeAmount: '0',
      feeReceiver: zeroAddress,
      expectedCapturableAmount: '1000',
      expectedRefundableAmount: '0',
      authorizerSignature: sig,
    })
    const captured = await post(serve.api, '/facilitator/settle', capture)
    expect(captured.body.success, JSON.stringify(captured.body)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await crash(serve, dataDir)

    serve = await spawnServe(dataDir)
    expect(await state()).toEqual([true, 0n, 1000n])
    const again = await post(serve.api, '/facilitator/settle', capture)
    expect(again.body).toMatchObject({
      success: true,
      transaction: captured.body.transaction,
      extra: { replayed: true },
    })
    expect(await balance(seller)).toBe(1000n)
  })
})
