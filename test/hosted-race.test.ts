import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Keypair } from '@solana/web3.js'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { withPaymentId } from '../src/sdk/x402/payment-identifier.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testPostgres } from './helpers/postgres.js'
import { buildBody } from './helpers/swap-orders.js'
import { eip3009Body, requirements, post as x402Post } from './helpers/x402.js'

/**
 * Two api replicas on one PostgreSQL, relaying with the same solver keys on the same external
 * chains (`parx chains --as testnet`), raced on what must happen once: the same signed Base order,
 * Solana swaps that together promise more than the solver holds, and one x402 payment id used by
 * several payloads at once. PostgreSQL only.
 */
let chains: StandaloneChains
let a: TestDaemon
let b: TestDaemon
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))

beforeAll(async () => {
  const url = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  const replica = () =>
    startTestDaemon({ env: chains.env, flags: { store: { url }, role: 'api', limits: { maxUsd: null } } })
  a = await replica()
  b = await replica()
})
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()])
  await chains?.stop()
  rmSync(chainsDir, { recursive: true, force: true })
})

const faucet = async (network: string, to: string, token: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, { method: 'POST', body: JSON.stringify({ network, to, token, amount }) })
  expect(res.status).toBe(200)
}
const balanceOf = (symbol: string, owner: Address) =>
  a.services.base.client.readContract({
    address: chains.contracts['base-sepolia']![symbol] as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })

describe('two api replicas on one PostgreSQL', () => {
  it('the same signed Base order submitted to both at once relays once', async () => {
    const key = await a.partnerKey()
    const user = privateKeyToAccount(generatePrivateKey())
    await faucet('base-sepolia', user.address, USDC, '30')
    const body = await buildBody(a, key, user, { in: USDC, out: TOKEN_A, amount: '10' })
    const post = (d: TestDaemon) =>
      d.raw('/api/base/swap', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(body),
      })
    const answers = await Promise.all([post(a), post(b), post(a), post(b)])
    const accepted = answers.filter((r) => r.status === 200)
    expect(accepted, JSON.stringify(answers.map((r) => r.body))).toHaveLength(1)
    for (const r of answers.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400)
      expect(r.body.code).toBe('NONCE_MISMATCH')
    }
    const hash = accepted[0]!.body.hash
    await a.services.base.client.waitForTransactionReceipt({ hash })
    // On chain: the user paid 10 USDC once and got 10 PUSD once.
    expect(await balanceOf(USDC, user.address)).toBe(20_000_000n)
    expect(await balanceOf(TOKEN_A, user.address)).toBe(10_000_000n)
    // Once landed, the order's nonce is used: a resubmission is refused on either replica.
    expect((await post(b)).body.code).toBe('NONCE_MISMATCH')
  })

  it('Solana swaps raced on both replicas never promise more than the solver holds', async () => {
    const key = await b.partnerKey()
    const info = await a.call('/api/sol/info')
    const available = info.mints[TOKEN_A].available as number
    // Each swap takes 60% of what is free: any two together are more than the inventory.
    const ui = Math.floor(available * 0.6).toString()
    const whales = Array.from({ length: 6 }, () => Keypair.generate())
    for (const w of whales) await faucet('solana-devnet', w.publicKey.toBase58(), USDC, ui)
    const build = (d: TestDaemon, w: Keypair) =>
      d.raw('/api/sol/swap', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ net: 'devnet', user: w.publicKey.toBase58(), uiAmount: ui, in: USDC, out: TOKEN_A }),
      })
    const answers = await Promise.all(whales.map((w, i) => build(i % 2 ? a : b, w)))
    expect(
      answers.filter((r) => r.status === 200),
      JSON.stringify(answers.map((r) => r.body)),
    ).toHaveLength(1)
    for (const r of answers.filter((r) => r.status !== 200)) expect(r.body.code).toBe('INVENTORY_SHORT')
    // Both replicas see the one reservation.
    for (const d of [a, b])
      expect((await d.call('/api/sol/info')).mints[TOKEN_A].available).toBeLessThanOrEqual(
        available - Number(ui) + 1e-6,
      )
  })

  it('one x402 payment id raced on both replicas with different payloads settles one of them, once', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    await faucet('base-sepolia', payer.address, USDC, '1')
    const payTo = privateKeyToAccount(generatePrivateKey()).address
    const r = requirements(a, { symbol: USDC, amount: '0.01', payTo, method: 'eip3009' })
    const id = `pay_race_replicas_${Date.now()}`
    const bodies = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const body = await eip3009Body(a, payer, r)
        return { ...body, paymentPayload: { ...body.paymentPayload, extensions: withPaymentId(undefined, id) } }
      }),
    )
    const answers = await Promise.all(bodies.map((body, i) => x402Post(i % 2 ? a : b, 'settle', body)))
    const paid = answers.filter((x) => x.status === 200)
    expect(paid, JSON.stringify(answers.map((x) => x.body))).toHaveLength(1)
    for (const x of answers.filter((x) => x.status !== 200))
      expect(x.body.errorReason).toBe('payment_identifier_mismatch')
    await a.services.base.client.waitForTransactionReceipt({ hash: paid[0]!.body.transaction })
    expect(await balanceOf(USDC, payTo)).toBe(10_000n)
    for (const d of [a, b])
      expect((await d.raw(`/facilitator/status/${id}`)).body).toMatchObject({
        status: 'completed',
        transaction: paid[0]!.body.transaction,
      })
  })
})
