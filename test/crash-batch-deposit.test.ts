import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createBatchSettlementEIP3009DepositPayload } from '@x402/evm/batch-settlement/client'
import { type Address, encodeFunctionData, getAddress, type Hex, parseAbi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { BATCH_SETTLEMENT_ADDRESS, channelIdOf } from '../src/sdk/x402/evm/batch-settlement/contracts.js'
import { crash, rpc, type ServeProcess, spawnServe, stopServe, untilStateWritten } from './helpers/serve-crash.js'
import { stateHead } from './helpers/state-file.js'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-crash-batch-'))
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
const channelsAbi = parseAbi(['function channels(bytes32) view returns (uint128 balance, uint128 totalClaimed)'])

describe('a batch-settlement deposit answered is a deposit on chain', () => {
  it('kill -9 right after /settle answered a deposit, before the chain state holds it: after the restart the outbox replay deposits it, and a retry does not deposit twice', async () => {
    serve = await spawnServe(dataDir)
    const supported = (await (await fetch(`${serve.api}/facilitator/supported`)).json()) as any
    const chainId = Number(await rpc<Hex>(serve.rpc['local-base']!, 'eth_chainId'))
    const network = `eip155:${chainId}`
    const kind = supported.kinds.find((k: any) => k.scheme === 'batch-settlement' && k.network === network)
    const usdc = getAddress(kind.extra.asset) as Address
    const payer = privateKeyToAccount(generatePrivateKey())
    const seller = privateKeyToAccount(generatePrivateKey()).address
    expect((await post(serve.api, '/api/local/faucet', { to: payer.address, token: 'USDC', amount: '1' })).status).toBe(
      200,
    )
    await untilStateWritten(serve, dataDir)

    const r = {
      scheme: 'batch-settlement',
      network,
      asset: usdc,
      amount: '1000',
      payTo: seller,
      maxTimeoutSeconds: 600,
      extra: { receiverAuthorizer: kind.extra.receiverAuthorizer, withdrawDelay: 900, name: 'USD Coin', version: '2' },
    }
    const config = {
      payer: payer.address,
      payerAuthorizer: payer.address,
      receiver: seller,
      receiverAuthorizer: kind.extra.receiverAuthorizer,
      token: usdc,
      withdrawDelay: 900,
      salt: `0x${'00'.repeat(31)}07` as Hex,
    }
    const signer = { address: payer.address, signTypedData: (m: any) => payer.signTypedData(m) }
    const dep = await createBatchSettlementEIP3009DepositPayload(
      signer as never,
      2,
      r as never,
      config,
      '400000',
      '1000',
    )
    const body = {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: r, payload: dep.payload },
      paymentRequirements: r,
    }
    const answered = await post(serve.api, '/facilitator/settle', body)
    expect(answered.body.success, JSON.stringify(answered.body)).toBe(true)
    const mined = await rpc<{ blockNumber: Hex }>(serve.rpc['local-base']!, 'eth_getTransactionReceipt', [
      answered.body.transaction,
    ])
    // At once: the state file is written once the chain has been quiet for 300 ms (state-dumper.ts).
    await crash(serve, dataDir)
    // The deposit is not in what the chain restarts from: only the outbox's replay can put it there.
    expect(stateHead(join(dataDir, 'chains', 'local-base.json'))).toBeLessThan(Number(mined.blockNumber))

    serve = await spawnServe(dataDir)
    const rpcUrl = serve.rpc['local-base']!
    const id = channelIdOf(config, chainId)
    const read = async () => {
      const data = await rpc<Hex>(rpcUrl, 'eth_call', [
        {
          to: BATCH_SETTLEMENT_ADDRESS,
          data: encodeFunctionData({ abi: channelsAbi, functionName: 'channels', args: [id] }),
        },
        'latest',
      ])
      return BigInt(data.slice(0, 66))
    }
    expect(await read()).toBe(400_000n)
    const again = await post(serve.api, '/facilitator/settle', body)
    expect(again.body.success).toBe(false)
    expect(again.body.errorReason).toBe('duplicate_settlement')
    expect(await read()).toBe(400_000n)
  })
})
