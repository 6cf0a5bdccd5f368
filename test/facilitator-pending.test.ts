import { x402Client } from '@x402/core/client'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment as officialFetch } from '@x402/fetch'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle } from './helpers/x402.js'
import { parxBuyer, recordingFetch } from './helpers/x402-buyers.js'
import { reportSellers } from './helpers/x402-sellers.js'

let d: TestDaemon
let ours: { url: string; close(): Promise<void> }
let official: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
const payTo = randomAddress()
const PRICE = '10000' // 0.01 USDC

beforeAll(async () => {
  // A short receipt wait (config facilitator.receiptTimeoutMs), so a paused chain answers pending quickly.
  d = await startTestDaemon({ flags: { facilitator: { receiptTimeoutMs: 300 } } })
  // The facilitator's one-time executor delegation (EIP-7702) is a transaction the daemon sends in
  // the background after start, 60-100 ms in, about when the set-up below ends: mined before any
  // test pauses mining, or it waits in the pool and every settle waits for it (CI, on PostgreSQL).
  await d.services.facilitator.warmUp()
  expect(await d.services.base.client.getCode({ address: d.services.accounts.facilitator })).toMatch(/^0xef0100/)
  payer = await evmPayer(d, ['USDC'], '10')
  ;({ official, ours } = await reportSellers(d, payTo, PRICE))
})
// A test that fails with mining paused must not leave the next one a paused chain (its failure would hide behind theirs).
afterEach(() => resumeMining().catch(() => {}))
afterAll(async () => {
  await ours?.close()
  await official?.close()
  await d?.close()
})

/**
 * Each step with its own deadline, well inside the test's: CI once saw all three tests here run out
 * their 60 s on PostgreSQL (never locally), and the timeout named no step.
 */
function step<T>(label: string, p: Promise<T>, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}

const rpc = (method: string, params: unknown[] = []) =>
  step(`chain ${method}`, d.services.base.client.request({ method, params } as never))
const pauseMining = () => rpc('evm_setAutomine', [false])
async function resumeMining() {
  await rpc('evm_setAutomine', [true])
  await rpc('evm_mine')
}
const balance = () => step('USDC balance', localBase(d).balance('USDC', payTo))
const get = (path: string) => step(`GET ${path}`, d.raw(path))
const settleNow = (body: Parameters<typeof settle>[1]) => step('POST /facilitator/settle', settle(d, body))

/** Reads a status route until it leaves `pending` (the background follower decides it once the chain mines). */
async function untilDecided(path: string, pick: (body: any) => string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const r = await get(path)
    if (r.status === 200 && pick(r.body) !== 'pending') return r.body
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error(`${path} stayed pending`)
}

describe('a settlement whose receipt does not come in time', () => {
  it('over /settle: answers settlement_pending with its transaction, retries wait for it, ends completed, and is told success exactly once', async () => {
    const body = await eip3009Body(
      d,
      payer,
      requirements(d, { symbol: 'USDC', amount: '0.01', payTo, method: 'eip3009' }),
    )
    const before = await balance()
    await pauseMining()
    const first = await settleNow(body)
    expect(first).toMatchObject({
      status: 502,
      body: { success: false, errorReason: 'settlement_pending', payer: payer.address },
    })
    const tx = first.body.transaction
    expect(tx).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await get(`/facilitator/status/tx/${tx}`)).toMatchObject({
      status: 200,
      body: { transaction: tx, payments: [{ status: 'pending', transaction: tx, paymentId: null, amount: PRICE }] },
    })
    // The worker's sweep does not decide a transaction the node still holds (it may yet pay).
    await step('reconcile', d.services.facilitator.reconcile({ idleForMs: 0 }))
    expect((await get(`/facilitator/status/tx/${tx}`)).body.payments[0].status).toBe('pending')
    // The seller's retry: the same transaction awaited again, never a second one.
    expect(await settleNow(body)).toMatchObject({
      status: 502,
      body: { errorReason: 'settlement_pending', transaction: tx },
    })

    await resumeMining()
    const done = await untilDecided(`/facilitator/status/tx/${tx}`, (b) => b.payments[0].status)
    expect(done.payments[0]).toMatchObject({ status: 'completed', transaction: tx, payer: payer.address })
    expect((await balance()) - before).toBe(BigInt(PRICE))
    // Decided in the background: the next settle of it is told success, once; after that it is a duplicate.
    expect(await settleNow(body)).toMatchObject({ status: 200, body: { success: true, transaction: tx } })
    expect(await settleNow(body)).toMatchObject({
      status: 409,
      body: { errorReason: 'duplicate_settlement', transaction: tx },
    })
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })

  it('behind the parx gate, paid by the parx client: 402 naming the pending transaction, /status pending then completed, the same payment then served, paid once', async () => {
    const id = `pay_pending_parx_${Date.now()}`
    const rec = recordingFetch()
    const before = await balance()
    await pauseMining()
    const res = await step('parx buyer', parxBuyer(d, { evm: payer }, undefined, rec.f, () => id)(`${ours.url}/report`))
    expect(res.status).toBe(402)
    const s = settlementOf(res)!
    expect(s).toMatchObject({ success: false, errorReason: 'settlement_pending' })
    // The gate retried the settle and the client resent the same payment: still one payload, one id.
    expect(new Set(rec.sent).size).toBe(1)
    const pending = await get(`/facilitator/status/${id}`)
    expect(pending).toMatchObject({
      status: 200,
      body: { paymentId: id, status: 'pending', transaction: s.transaction, payTo },
    })

    await resumeMining()
    const done = await untilDecided(`/facilitator/status/${id}`, (b) => b.status)
    expect(done).toMatchObject({ status: 'completed', transaction: s.transaction })
    const served = await fetch(`${ours.url}/report`, { headers: { 'payment-signature': rec.sent[0]! } })
    expect(served.status).toBe(200)
    expect(await served.json()).toEqual({ report: 'ours' })
    expect(settlementOf(served)).toMatchObject({ success: true, transaction: s.transaction })
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })

  it('behind the reference seller (its settle retry), paid by the official client: /status pending then completed, paid once', async () => {
    const id = `pay_pending_official_${Date.now()}`
    const client = x402Client.fromConfig({
      schemes: [
        { network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, d.services.base.client as never)) },
      ],
      spendControls: false,
    })
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      if (paymentRequired.extensions)
        appendPaymentIdentifierToExtensions(paymentRequired.extensions as Record<string, unknown>, id)
    })
    const rec = recordingFetch()
    const before = await balance()
    await pauseMining()
    const res = await step('official buyer', officialFetch(rec.f, client)(`${official.url}/report`))
    expect(res.status).not.toBe(200)
    const pending = await get(`/facilitator/status/${id}`)
    expect(pending).toMatchObject({ status: 200, body: { paymentId: id, status: 'pending' } })
    const tx = pending.body.transaction
    expect(tx).toMatch(/^0x[0-9a-f]{64}$/)

    await resumeMining()
    expect(await untilDecided(`/facilitator/status/${id}`, (b) => b.status)).toMatchObject({
      status: 'completed',
      transaction: tx,
    })
    expect((await balance()) - before).toBe(BigInt(PRICE))
    const served = await fetch(`${official.url}/report`, { headers: { 'payment-signature': rec.sent[0]! } })
    expect(served.status).toBe(200)
    expect(settlementOf(served)).toMatchObject({ success: true, transaction: tx })
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })
})
