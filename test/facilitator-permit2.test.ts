import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import express from 'express'
import { type Address, createWalletClient, erc20Abi, http, maxUint256, parseEther } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { PERMIT2_ADDRESS, permit2TypedData, X402_EXACT_PERMIT2_PROXY } from '../src/sdk/x402/evm/permit2.js'
import type { PaymentRequirements } from '../src/sdk/x402/types.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  evmPayer,
  localBase,
  nowSeconds,
  post,
  randomAddress,
  requirements,
  settle,
  verify,
  type X402Body,
} from './helpers/x402.js'
import { listen, officialBuyer } from './helpers/x402-buyers.js'

let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
const payTo = randomAddress()
const PUSD_PRICE = '10000000000000000' // 0.01 PUSD

/** The payer's one-time setup the reference permit2 flow assumes: ETH for gas, then approve(Permit2). */
async function approvePermit2(account: PrivateKeyAccount, symbol: string) {
  const chain = localBase(d).chain
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [account.address, `0x${parseEther('1').toString(16)}`] as never,
  })
  const wallet = createWalletClient({ account, chain: chain.client.chain, transport: http(chain.rpcUrl) })
  const hash = await wallet.writeContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
    chain: chain.client.chain,
  })
  await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
}

/** A permit2 payment signed as @x402/evm signs it; `o` bends one field for the failure cases. */
async function permit2Body(
  r: PaymentRequirements,
  o: Partial<{ spender: Address; amount: bigint; to: Address }> = {},
): Promise<X402Body> {
  const a = {
    token: r.asset as Address,
    amount: o.amount ?? BigInt(r.amount),
    spender: o.spender ?? X402_EXACT_PERMIT2_PROXY,
    nonce: BigInt(Math.floor(Math.random() * 2 ** 48)),
    deadline: nowSeconds() + 120n,
    to: o.to ?? (r.payTo as Address),
    validAfter: 0n,
  }
  const signature = await payer.signTypedData(permit2TypedData(localBase(d).chain.chainId, a))
  const permit2Authorization = {
    from: payer.address,
    permitted: { token: a.token, amount: a.amount.toString() },
    spender: a.spender,
    nonce: a.nonce.toString(),
    deadline: a.deadline.toString(),
    witness: { to: a.to, validAfter: '0' },
  }
  return {
    x402Version: 2,
    paymentPayload: { x402Version: 2, accepted: r, payload: { signature, permit2Authorization } },
    paymentRequirements: r,
  }
}

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['PUSD', 'XUSD'], '10')
  await approvePermit2(payer, 'PUSD')
  const b = localBase(d)
  const pusd = b.token('PUSD')
  // A stock seller: the official middleware and ExactEvmScheme, asking for permit2; only the facilitator URL is ours.
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
    b.caip2 as `${string}:${string}`,
    new ExactEvmScheme(),
  )
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /report': {
          accepts: {
            scheme: 'exact',
            network: b.caip2 as `${string}:${string}`,
            payTo,
            price: { amount: PUSD_PRICE, asset: pusd.address, extra: { assetTransferMethod: 'permit2' } },
          },
        },
      },
      server,
    ),
  )
  app.get('/report', (_req, res) => void res.json({ paid: 'permit2' }))
  seller = await listen(app)
})
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

const balance = (symbol: string, who: Address) => localBase(d).balance(symbol, who)
const pusdReq = (amount = '0.01') => requirements(d, { symbol: 'PUSD', amount, payTo, method: 'permit2' })

describe('permit2 (reference EVM exact) on the embedded chain', () => {
  it('is advertised for every EVM token', async () => {
    const s = (await d.call('/facilitator/supported')) as {
      kinds: Array<{ scheme: string; network: string; extra: { assetTransferMethods?: string[] } }>
    }
    // batch-settlement deposits go through its own collectors, not the exact/upto Permit2 proxies.
    for (const k of s.kinds.filter((k) => k.network === localBase(d).caip2 && k.scheme !== 'batch-settlement'))
      expect(k.extra.assetTransferMethods).toContain('permit2')
  })

  it('pays a seller behind @x402/express from @x402/fetch, moving the balance exactly once', async () => {
    const [payerBefore, sellerBefore] = [await balance('PUSD', payer.address), await balance('PUSD', payTo)]
    const res = await officialBuyer(d, payer)(`${seller.url}/report`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ paid: 'permit2' })
    expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address, network: localBase(d).caip2 })
    expect((await balance('PUSD', payTo)) - sellerBefore).toBe(BigInt(PUSD_PRICE))
    expect(payerBefore - (await balance('PUSD', payer.address))).toBe(BigInt(PUSD_PRICE))
  })

  it('settles one authorization once: a replay is duplicate_settlement and moves nothing', async () => {
    const body = await permit2Body(pusdReq())
    expect(await verify(d, body)).toMatchObject({ isValid: true, payer: payer.address })
    const before = await balance('PUSD', payTo)
    const first = await settle(d, body)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ success: true, payer: payer.address })
    const again = await settle(d, body)
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
      transaction: first.body.transaction,
    })
    expect((await balance('PUSD', payTo)) - before).toBe(BigInt(PUSD_PRICE))
    // The chain agrees: Permit2 has burnt the nonce.
    expect((await verify(d, body)).invalidReason).toBe('permit2_invalid_nonce')
  })

  it('refuses what the reference refuses, by the reference names', async () => {
    const reason = async (b: X402Body) => (await verify(d, b)).invalidReason
    expect(await reason(await permit2Body(pusdReq(), { spender: d.services.accounts.facilitator }))).toBe(
      'invalid_permit2_spender',
    )
    expect(await reason(await permit2Body(pusdReq(), { amount: BigInt(pusdReq().amount) - 1n }))).toBe(
      'permit2_amount_mismatch',
    )
    expect(await reason(await permit2Body(pusdReq(), { to: randomAddress() }))).toBe(
      'invalid_permit2_recipient_mismatch',
    )
    const forged = await permit2Body(pusdReq())
    ;(forged.paymentPayload.payload as { permit2Authorization: { nonce: string } }).permit2Authorization.nonce = '1'
    expect(await reason(forged)).toBe('invalid_permit2_signature')
    // XUSD was never approved to Permit2.
    expect(
      await reason(await permit2Body(requirements(d, { symbol: 'XUSD', amount: '1', payTo, method: 'permit2' }))),
    ).toBe('permit2_allowance_required')
    expect(await reason(await permit2Body(pusdReq('1000')))).toBe('permit2_insufficient_balance')
    const short = await post(d, 'settle', await permit2Body(pusdReq(), { amount: 1n }))
    expect(short.status).toBe(422)
    expect(short.body).toMatchObject({ success: false, errorReason: 'permit2_amount_mismatch' })
  })

  it('finds Permit2 and the proxy after a restart, even on a data dir whose chain lacks them', async () => {
    // As a data dir made before parx placed them: code gone, chain state and deployment record kept.
    for (const a of [PERMIT2_ADDRESS, X402_EXACT_PERMIT2_PROXY]) {
      await localBase(d).chain.client.request({ method: 'anvil_setCode' as never, params: [a, '0x'] as never })
    }
    expect((await verify(d, await permit2Body(pusdReq()))).invalidReason).toBe('permit2_proxy_not_deployed')
    const dataDir = d.dataDir
    await d.close({ keepData: true })
    d = await startTestDaemon({ dataDir })
    expect(await verify(d, await permit2Body(pusdReq()))).toMatchObject({ isValid: true, payer: payer.address })
  })
})
