import { Keypair } from '@solana/web3.js'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  asV1,
  eip3009Body,
  erc2612Body,
  evmPayer,
  localBase,
  localSolana,
  randomAddress,
  requirements,
  settle,
  solanaPayer,
  solRequirements,
  splBody,
  verify,
  type X402Body,
} from './helpers/x402.js'

let d: TestDaemon
let payer: PrivateKeyAccount

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC', 'PUSD'], '100')
})
afterAll(async () => d?.close())

/** Settles `body` `times` times at once; every answer, and how much reached the seller. */
async function settleConcurrently(body: X402Body, times: number, balance: () => Promise<bigint>) {
  const before = await balance()
  const answers = await Promise.all(Array.from({ length: times }, () => settle(d, body)))
  return { answers, moved: (await balance()) - before }
}

const evmCases = [
  { name: 'eip3009', symbol: 'USDC', sign: eip3009Body },
  { name: 'erc2612', symbol: 'PUSD', sign: erc2612Body },
] as const

for (const m of evmCases) {
  describe(`${m.name} settle`, () => {
    it('settles once; a second settle answers duplicate_settlement with the first transaction', async () => {
      const seller = randomAddress()
      const r = requirements(d, { symbol: m.symbol, amount: '2', payTo: seller, method: m.name })
      const body = await m.sign(d, payer, r)
      const first = await settle(d, body)
      expect(first).toMatchObject({
        status: 200,
        body: { success: true, payer: payer.address, network: localBase(d).caip2 },
      })
      expect(first.body.transaction).toMatch(/^0x[0-9a-f]{64}$/)
      const receipt = await localBase(d).chain.client.getTransactionReceipt({
        hash: first.body.transaction as `0x${string}`,
      })
      expect(receipt.status).toBe('success')
      const second = await settle(d, body)
      expect(second.status).toBe(409)
      expect(second.body).toMatchObject({
        success: false,
        errorReason: 'duplicate_settlement',
        transaction: first.body.transaction,
      })
      expect(await localBase(d).balance(m.symbol, seller)).toBe(BigInt(r.amount))
    })

    it('settles once under concurrent settles of the same payment', async () => {
      const seller = randomAddress()
      const r = requirements(d, { symbol: m.symbol, amount: '1', payTo: seller, method: m.name })
      const { answers, moved } = await settleConcurrently(await m.sign(d, payer, r), 8, () =>
        localBase(d).balance(m.symbol, seller),
      )
      expect(answers.filter((a) => a.body.success)).toHaveLength(1)
      expect(answers.filter((a) => a.status === 409 && a.body.errorReason === 'duplicate_settlement')).toHaveLength(7)
      expect(moved).toBe(BigInt(r.amount))
    })

    it('treats the v1 and v2 forms of one authorization as one payment', async () => {
      const seller = randomAddress()
      const r = requirements(d, { symbol: m.symbol, amount: '0.5', payTo: seller, method: m.name })
      const v2 = await m.sign(d, payer, r)
      const v1 = asV1(v2, localBase(d).legacy)
      expect(await verify(d, v1)).toEqual({ isValid: true, payer: payer.address })
      expect((await settle(d, v1)).body).toMatchObject({ success: true, network: localBase(d).caip2 })
      expect((await settle(d, v2)).body.errorReason).toBe('duplicate_settlement')
      expect(await localBase(d).balance(m.symbol, seller)).toBe(BigInt(r.amount))
    })
  })
}

it('settles many different payments at once, none lost to a nonce clash', async () => {
  const seller = randomAddress()
  const payers = await Promise.all(Array.from({ length: 6 }, () => evmPayer(d, ['USDC'], '10')))
  const r = requirements(d, { symbol: 'USDC', amount: '0.1', payTo: seller, method: 'eip3009' })
  const bodies = await Promise.all(
    payers.flatMap((p) => [eip3009Body(d, p, r), eip3009Body(d, p, r), eip3009Body(d, p, r)]),
  )
  const answers = await Promise.all(bodies.map((b) => settle(d, b)))
  expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 200))
  expect(await localBase(d).balance('USDC', seller)).toBe(BigInt(r.amount) * BigInt(bodies.length))
})

it('a settle that fails on the chain is success:false with a reason, never a 200', async () => {
  const poor = privateKeyToAccount(generatePrivateKey())
  const r = requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress(), method: 'eip3009' })
  const out = await settle(d, await eip3009Body(d, poor, r))
  expect(out.status).toBe(422)
  expect(out.body).toMatchObject({
    success: false,
    errorReason: 'invalid_exact_evm_insufficient_balance',
    payer: poor.address,
    transaction: '',
  })
})

it('a payment the chain stopped honouring between verify and settle fails alone, with the chain’s reason', async () => {
  const spender = await evmPayer(d, ['USDC'], '1')
  const seller = randomAddress()
  const r = requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
  const a = await eip3009Body(d, spender, r)
  const b = await eip3009Body(d, spender, r)
  expect((await verify(d, a)).isValid).toBe(true)
  expect((await verify(d, b)).isValid).toBe(true)
  // Both verified against the same single dollar: only the first can settle.
  const [first, second] = await Promise.all([settle(d, a), settle(d, b)])
  expect([first.body.success, second.body.success].sort()).toEqual([false, true])
  const failed = first.body.success ? second : first
  expect(failed.status).toBe(422)
  expect(failed.body.errorReason).toBe('invalid_exact_evm_insufficient_balance')
  expect(await localBase(d).balance('USDC', seller)).toBe(BigInt(r.amount))
})

describe('delegated-spl settle', () => {
  it('settles once, also under concurrent settles, and records the nonce', async () => {
    const s = localSolana(d)
    const sp = await solanaPayer(d, 'PUSD', '10')
    await s.approve(sp, 'PUSD', 5_000_000_000n)
    const seller = Keypair.generate().publicKey
    const r = solRequirements(d, { symbol: 'PUSD', amount: 1_000_000_000n, payTo: seller.toBase58() })
    const body = await splBody(sp, r)
    const { answers, moved } = await settleConcurrently(body, 5, () => s.balance('PUSD', seller))
    expect(answers.filter((a) => a.body.success)).toHaveLength(1)
    expect(answers.filter((a) => a.body.errorReason === 'duplicate_settlement')).toHaveLength(4)
    expect(moved).toBe(1_000_000_000n)
    const again = await settle(d, body)
    expect(again).toMatchObject({ status: 409, body: { errorReason: 'duplicate_settlement' } })
    expect((await verify(d, body)).invalidReason).toBe('invalid_delegated_spl_nonce_already_used')
    const tx = await s.connection.getTransaction(answers.find((a) => a.body.success)!.body.transaction, {
      maxSupportedTransactionVersion: 0,
      commitment: 'confirmed',
    })
    const nonce = (body.paymentPayload.payload as any).authorization.nonce
    expect(tx?.meta?.logMessages?.join('\n')).toContain(`nonce:${nonce}`)
  })
})
