import type { Address } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle, verify } from './helpers/x402.js'

/**
 * The facilitator's hooks on a running daemon, registered in-process as an embedder would
 * (services.facilitator), reached over the HTTP routes: an after-verify abort refuses a valid
 * payment, a before-settle abort sends nothing, an after-settle hook sees the settled transaction.
 */
let d: TestDaemon
let payer: PrivateKeyAccount
const blocked = randomAddress()
const paused = randomAddress()
const settledSeen: { payTo: string; transaction: string; success: boolean }[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC'], '100')
  const same = (a: string, b: Address) => a.toLowerCase() === b.toLowerCase()
  d.services.facilitator
    .onAfterVerify(async ({ requirements: r }) =>
      same(r.payTo, blocked)
        ? { abort: true, reason: 'payee_blocked', message: 'this payee is on the blocklist' }
        : undefined,
    )
    .onBeforeSettle(async ({ requirements: r }) =>
      same(r.payTo, paused) ? { abort: true, reason: 'payee_paused' } : undefined,
    )
    .onAfterSettle(
      async ({ requirements: r, result }) =>
        void settledSeen.push({ payTo: r.payTo, transaction: result.transaction, success: result.success }),
    )
}, 120_000)
afterAll(async () => d?.close())

describe('facilitator hooks over HTTP', () => {
  it('an after-verify abort turns a valid payment into isValid false with its reason', async () => {
    const ok = await verify(
      d,
      await eip3009Body(
        d,
        payer,
        requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress(), method: 'eip3009' }),
      ),
    )
    expect(ok).toMatchObject({ isValid: true, payer: payer.address })
    const refused = await verify(
      d,
      await eip3009Body(d, payer, requirements(d, { symbol: 'USDC', amount: '1', payTo: blocked, method: 'eip3009' })),
    )
    expect(refused).toMatchObject({
      isValid: false,
      invalidReason: 'payee_blocked',
      invalidMessage: 'this payee is on the blocklist',
      payer: payer.address,
    })
  })

  it('a before-settle abort moves nothing; after-settle hooks see both outcomes', async () => {
    const usdc = (a: Address) => localBase(d).balance('USDC', a)
    const before = await usdc(payer.address)
    const stopped = await settle(
      d,
      await eip3009Body(d, payer, requirements(d, { symbol: 'USDC', amount: '2', payTo: paused, method: 'eip3009' })),
    )
    expect(stopped).toMatchObject({
      status: 422,
      body: { success: false, errorReason: 'payee_paused', transaction: '' },
    })
    expect(await usdc(paused)).toBe(0n)
    const seller = randomAddress()
    const paid = await settle(
      d,
      await eip3009Body(d, payer, requirements(d, { symbol: 'USDC', amount: '2', payTo: seller, method: 'eip3009' })),
    )
    expect(paid.body).toMatchObject({ success: true })
    expect(await usdc(seller)).toBe(2_000_000n)
    expect(await usdc(payer.address)).toBe(before - 2_000_000n)
    expect(settledSeen.map((s) => [s.payTo.toLowerCase(), s.success, s.transaction])).toEqual([
      [paused.toLowerCase(), false, ''],
      [seller.toLowerCase(), true, paid.body.transaction],
    ])
  })
})
