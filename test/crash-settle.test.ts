import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, encodeFunctionData, getAddress, type Hex, keccak256, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { tokenAbi } from '../src/sdk/x402/evm/calls.js'
import { transferWithAuthorizationTypedData } from '../src/sdk/x402/evm/typed-data.js'
import {
  crash,
  partnerHeaders,
  rpc,
  type ServeProcess,
  spawnServe,
  stopServe,
  untilStateWritten,
} from './helpers/serve-crash.js'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-crash-settle-'))
const swapDir = mkdtempSync(join(tmpdir(), 'parx-crash-swap-'))
const faucetDir = mkdtempSync(join(tmpdir(), 'parx-crash-faucet-'))
let serve: ServeProcess | undefined
afterAll(async () => {
  if (serve) await stopServe(serve)
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(swapDir, { recursive: true, force: true })
  rmSync(faucetDir, { recursive: true, force: true })
})

const post = async (api: string, path: string, body: unknown) => {
  const res = await fetch(`${api}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: res.status, body: (await res.json()) as any }
}
const balanceOf = async (rpcUrl: string, token: Address, owner: Address) =>
  BigInt(
    await rpc<Hex>(rpcUrl, 'eth_call', [
      { to: token, data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [owner] }) },
      'latest',
    ]),
  )

describe('settled means settled: a hard crash right after /settle answered', () => {
  it('kill -9 of the whole process group ~200 ms after 20 settles: after restart the seller holds all 20 and retries name real transactions', async () => {
    serve = await spawnServe(dataDir)
    const supported = (await (await fetch(`${serve.api}/facilitator/supported`)).json()) as any
    const chainId = Number(await rpc<Hex>(serve.rpc['local-base']!, 'eth_chainId'))
    const network = `eip155:${chainId}`
    const usdc = getAddress(
      supported.kinds.find((k: any) => k.network === network && k.extra?.name === 'USD Coin').extra.asset,
    )

    const payer = privateKeyToAccount(generatePrivateKey())
    const seller = privateKeyToAccount(generatePrivateKey()).address
    expect(
      (await post(serve.api, '/api/local/faucet', { to: payer.address, token: 'USDC', amount: '100' })).status,
    ).toBe(200)
    // The funding is in the chain's state file: only the settlements are at risk.
    await untilStateWritten(serve, dataDir)

    const amount = 1_000_000n
    const r = {
      scheme: 'exact',
      network,
      asset: usdc,
      amount: amount.toString(),
      payTo: seller,
      maxTimeoutSeconds: 600,
      extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
    }
    const bodies = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const a = {
          from: payer.address,
          to: seller,
          value: amount,
          validAfter: 0n,
          validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
          nonce: keccak256(toHex(`${Math.random()}`)),
        }
        const signature = await payer.signTypedData(
          transferWithAuthorizationTypedData({ name: 'USD Coin', version: '2', chainId, verifyingContract: usdc }, a),
        )
        const authorization = {
          from: a.from,
          to: a.to,
          value: a.value.toString(),
          validAfter: '0',
          validBefore: a.validBefore.toString(),
          nonce: a.nonce,
        }
        return {
          x402Version: 2,
          paymentPayload: { x402Version: 2, accepted: r, payload: { signature, authorization } },
          paymentRequirements: r,
        }
      }),
    )
    const answers = await Promise.all(bodies.map((b) => post(serve!.api, '/facilitator/settle', b)))
    for (const a of answers) expect(a.body.success, JSON.stringify(a.body)).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 200))
    await crash(serve, dataDir)

    serve = await spawnServe(dataDir)
    const rpcUrl = serve.rpc['local-base']!
    // Ready comes after the first reconciliation: lost transactions were broadcast again.
    expect(await balanceOf(rpcUrl, usdc, seller)).toBe(20n * amount)
    expect(await balanceOf(rpcUrl, usdc, payer.address)).toBe(100_000_000n - 20n * amount)
    for (const b of bodies) {
      const again = await post(serve.api, '/facilitator/settle', b)
      expect(again.status, JSON.stringify(again.body)).toBe(409)
      expect(again.body.errorReason).toBe('duplicate_settlement')
      const receipt = await rpc<{ status: Hex } | null>(rpcUrl, 'eth_getTransactionReceipt', [again.body.transaction])
      expect(receipt?.status, `the named transaction ${again.body.transaction} is on chain`).toBe('0x1')
    }
    // Nothing paid twice.
    expect(await balanceOf(rpcUrl, usdc, seller)).toBe(20n * amount)
  })

  it('swaps accepted just before the crash land after the restart (or confirm says dropped/failed), balances consistent', async () => {
    if (serve) await stopServe(serve)
    serve = await spawnServe(swapDir)
    const apiKey = (await partnerHeaders(serve, swapDir))['x-api-key']
    const info = (await (await fetch(`${serve.api}/api/base/info`)).json()) as any
    const users = Array.from({ length: 5 }, () => privateKeyToAccount(generatePrivateKey()))
    for (const u of users)
      expect((await post(serve.api, '/api/local/faucet', { to: u.address, token: 'USDC', amount: '10' })).status).toBe(
        200,
      )
    await untilStateWritten(serve, swapDir)

    const accepted = await Promise.all(
      users.map((account) =>
        createSwapClient({ account, apiUrl: serve!.api, apiKey }).swap({ in: 'USDC', out: 'PUSD', amount: '4' }),
      ),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    await crash(serve, swapDir)

    serve = await spawnServe(swapDir)
    const rpcUrl = serve.rpc['local-base']!
    const pusd = getAddress(info.out.PUSD.addr)
    for (const [i, swap] of accepted.entries()) {
      const res = await fetch(`${serve.api}/api/base/confirm?hash=${swap.hash}`, { headers: { 'x-api-key': apiKey } })
      const c = (await res.json()) as any
      expect(['included', 'dropped', 'failed'], JSON.stringify(c)).toContain(c.status)
      const usdcLeft = await balanceOf(rpcUrl, getAddress(info.usdc), users[i]!.address)
      const pusdGot = await balanceOf(rpcUrl, pusd, users[i]!.address)
      if (c.status === 'included') {
        expect([usdcLeft, pusdGot]).toEqual([6_000_000n, 4n * 10n ** 18n])
      } else {
        expect([usdcLeft, pusdGot]).toEqual([10_000_000n, 0n])
      }
    }
  })

  it('faucet mints answered just before the crash are on chain after the restart (the outbox replays them)', async () => {
    if (serve) await stopServe(serve)
    serve = await spawnServe(faucetDir)
    const info = (await (await fetch(`${serve.api}/api/base/info`)).json()) as any
    const usdc = getAddress(info.usdc)
    // What came before the mints is in the chain's state file: only the mints are at risk.
    await untilStateWritten(serve, faucetDir)
    const owners = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()).address)
    const answers = await Promise.all(
      owners.map((to, i) => post(serve!.api, '/api/local/faucet', { to, token: 'USDC', amount: String(i + 1) })),
    )
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200)
    // Sooner than the settle test: the mints are few and quick, and the state dump must not catch them.
    await crash(serve, faucetDir)

    serve = await spawnServe(faucetDir)
    const rpcUrl = serve.rpc['local-base']!
    const landed = await Promise.all(
      owners.map(async (to, i) => ({
        balance: await balanceOf(rpcUrl, usdc, to),
        receipt:
          (await rpc<{ status: Hex } | null>(rpcUrl, 'eth_getTransactionReceipt', [answers[i]!.body.tx]))?.status ??
          null,
      })),
    )
    // On failure: every mint's fate, and what the restarted daemon said of its outbox.
    const log = join(faucetDir, 'parx.log')
    const said = `${JSON.stringify(landed, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n${(existsSync(log)
      ? readFileSync(log, 'utf8')
      : '(no parx.log)'
    )
      .split('\n')
      .filter((l) => /outbox|deploy/.test(l))
      .slice(-20)
      .join('\n')}`
    expect(
      landed.map((l) => l.balance),
      said,
    ).toEqual(owners.map((_, i) => BigInt(i + 1) * 1_000_000n))
    expect(
      landed.map((l) => l.receipt),
      said,
    ).toEqual(owners.map(() => '0x1'))
  })
})
