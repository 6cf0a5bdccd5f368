import { x402Client } from '@x402/core/client'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  PAYMENT_IDENTIFIER,
} from '@x402/extensions/payment-identifier'
import { wrapFetchWithPayment as officialFetch } from '@x402/fetch'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { withPaymentId } from '../src/sdk/x402/payment-identifier.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  eip3009Body,
  evmPayer,
  localBase,
  post,
  randomAddress,
  requirements,
  settle,
  verify,
  type X402Body,
} from './helpers/x402.js'
import { parxBuyer, recordingFetch } from './helpers/x402-buyers.js'
import { reportSellers } from './helpers/x402-sellers.js'

let d: TestDaemon
let official: { url: string; close(): Promise<void> }
let ours: { url: string; close(): Promise<void> }
let payer: PrivateKeyAccount
const payTo = randomAddress()
const PRICE = '10000' // 0.01 USDC

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC'], '10')
  ;({ official, ours } = await reportSellers(d, payTo, PRICE))
})
afterAll(async () => {
  await official?.close()
  await ours?.close()
  await d?.close()
})

const balance = () => localBase(d).balance('USDC', payTo)
const withId = (body: X402Body, id: string): X402Body => ({
  ...body,
  paymentPayload: { ...body.paymentPayload, extensions: withPaymentId(undefined, id) },
})

describe('payment-identifier on the facilitator', () => {
  it('is advertised in /supported', async () => {
    const s = await d.call('/facilitator/supported')
    expect(s.extensions).toContain('payment-identifier')
  })

  it('with the official @x402/fetch client and a reference seller: the same payment again is answered without a second transfer; another payment under the id is refused', async () => {
    const id = `pay_official_${Date.now()}_abc`
    const client = x402Client.fromConfig({
      schemes: [
        { network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(payer, d.services.base.client as never)) },
      ],
      spendControls: false,
    })
    // The extension's documented client side: the seller declared it, the client appends its id.
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      if (paymentRequired.extensions)
        appendPaymentIdentifierToExtensions(paymentRequired.extensions as Record<string, unknown>, id)
    })
    const rec = recordingFetch()
    const buy = officialFetch(rec.f, client)
    const before = await balance()
    const first = await buy(`${official.url}/report`)
    expect(first.status).toBe(200)
    expect(await first.json()).toEqual({ report: 'official' })
    const tx = settlementOf(first)!.transaction
    expect((await balance()) - before).toBe(BigInt(PRICE))
    const sentPayload = decodeHeader<any>(rec.sent[0])!
    expect(sentPayload.extensions[PAYMENT_IDENTIFIER].info.id).toBe(id)

    // The purchase retried: the very same PAYMENT-SIGNATURE. Served again, paid once.
    const again = await fetch(`${official.url}/report`, { headers: { 'payment-signature': rec.sent[0]! } })
    expect(again.status).toBe(200)
    expect(settlementOf(again)).toMatchObject({ success: true, transaction: tx })
    expect((await balance()) - before).toBe(BigInt(PRICE))

    // A new purchase signed under the same id is another payload: refused, nothing moves.
    const other = await buy(`${official.url}/report`)
    expect(other.status).toBe(402)
    expect((await balance()) - before).toBe(BigInt(PRICE))
    const refused = decodeHeader<any>(rec.sent.at(-1))!
    expect(refused.extensions[PAYMENT_IDENTIFIER].info.id).toBe(id)
    const v = await verify(d, { x402Version: 2, paymentPayload: refused, paymentRequirements: refused.accepted })
    expect(v).toMatchObject({ isValid: false, invalidReason: 'payment_identifier_mismatch' })
  })

  it('with the parx client and the parx gate: an id per purchase, the same payment resent pays once, another payload under the id is refused', async () => {
    const id = `pay_parx_${Date.now()}_abcdef`
    // The gate declares the extension (optional) because the facilitator lists it in /supported.
    const terms = decodeHeader<any>((await fetch(`${ours.url}/report`)).headers.get('payment-required'))!
    expect(terms.extensions[PAYMENT_IDENTIFIER]).toEqual(declarePaymentIdentifierExtension())
    const rec = recordingFetch()
    const buy = parxFetchWithId(rec.f, id)
    const before = await balance()
    const first = await buy(`${ours.url}/report`)
    expect(first.status).toBe(200)
    const tx = settlementOf(first)!.transaction
    expect(decodeHeader<any>(rec.sent[0])!.extensions[PAYMENT_IDENTIFIER].info).toEqual({ required: false, id })
    const again = await fetch(`${ours.url}/report`, { headers: { 'payment-signature': rec.sent[0]! } })
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual({ report: 'ours' })
    expect(settlementOf(again)).toMatchObject({ success: true, transaction: tx })
    expect((await balance()) - before).toBe(BigInt(PRICE))

    const other = await buy(`${ours.url}/report`)
    expect(other.status).toBe(402)
    expect(decodeHeader<any>(other.headers.get('payment-required'))!.error).toBe('payment_identifier_mismatch')
    expect((await balance()) - before).toBe(BigInt(PRICE))

    // Without a fixed id the parx client sends a fresh one per purchase.
    const plain = recordingFetch()
    expect((await parxBuyerVia(plain.f)(`${ours.url}/report`)).status).toBe(200)
    expect((await parxBuyerVia(plain.f)(`${ours.url}/report`)).status).toBe(200)
    const ids = plain.sent.map((h) => decodeHeader<any>(h)!.extensions[PAYMENT_IDENTIFIER].info.id)
    expect(new Set(ids).size).toBe(2)
    expect((await balance()) - before).toBe(3n * BigInt(PRICE))
  })

  it('over /verify and /settle: first answers replayed, mismatches refused, ids scoped to the seller, bad ids refused, status readable', async () => {
    const r = requirements(d, { symbol: 'USDC', amount: '0.01', payTo, method: 'eip3009' })
    const id = `pay_direct_${Date.now()}_xyz`
    const body = withId(await eip3009Body(d, payer, r), id)
    const before = await balance()
    expect(await verify(d, body)).toMatchObject({ isValid: true, payer: payer.address })
    const first = await settle(d, body)
    expect(first).toMatchObject({ status: 200, body: { success: true } })
    const second = await settle(d, body)
    expect(second).toEqual(first)
    // Verified again after settling (its nonce is spent): still the payment it was.
    expect(await verify(d, body)).toMatchObject({ isValid: true, payer: payer.address })
    expect((await balance()) - before).toBe(BigInt(PRICE))

    const otherPayload = withId(await eip3009Body(d, payer, r), id)
    expect(await verify(d, otherPayload)).toMatchObject({
      isValid: false,
      invalidReason: 'payment_identifier_mismatch',
    })
    expect(await settle(d, otherPayload)).toMatchObject({
      status: 409,
      body: { success: false, errorReason: 'payment_identifier_mismatch' },
    })
    expect((await balance()) - before).toBe(BigInt(PRICE))

    // Another seller may use the same id for its own purchase.
    const elsewhere = randomAddress()
    const theirs = withId(
      await eip3009Body(
        d,
        payer,
        requirements(d, { symbol: 'USDC', amount: '0.01', payTo: elsewhere, method: 'eip3009' }),
      ),
      id,
    )
    expect(await settle(d, theirs)).toMatchObject({ status: 200, body: { success: true } })

    const bad = withId(await eip3009Body(d, payer, r), 'short')
    expect(await verify(d, bad)).toMatchObject({ isValid: false, invalidReason: 'invalid_payment_identifier' })
    expect(await settle(d, bad)).toMatchObject({ status: 422, body: { errorReason: 'invalid_payment_identifier' } })

    // Two sellers hold the id: the status route needs to know which.
    const ambiguous = await d.raw(`/facilitator/status/${id}`)
    expect(ambiguous).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } })
    const st = await d.raw(`/facilitator/status/${id}?payTo=${payTo}`)
    expect(st).toMatchObject({
      status: 200,
      body: {
        paymentId: id,
        status: 'completed',
        transaction: first.body.transaction,
        payer: payer.address,
        amount: PRICE,
        network: localBase(d).caip2,
      },
    })
    const byTx = await d.raw(`/facilitator/status/tx/${first.body.transaction}`)
    expect(byTx.status).toBe(200)
    expect(byTx.body.payments).toEqual(
      expect.arrayContaining([expect.objectContaining({ paymentId: id, status: 'completed', payTo })]),
    )
    expect(await d.raw('/facilitator/status/pay_never_used_0000000')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    })
    // A malformed path parameter is NOT_FOUND, like an id that does not exist (src/sdk/parse-input.ts).
    expect(await d.raw('/facilitator/status/not!an!id!at!all!!')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND' },
    })
  })

  it('a refusal is the first result too: the same payload under its id stays refused after the payer is funded', async () => {
    const broke = privateKeyToAccount(generatePrivateKey())
    const r = requirements(d, { symbol: 'USDC', amount: '0.01', payTo, method: 'eip3009' })
    const body = withId(await eip3009Body(d, broke, r), `pay_refused_${Date.now()}_00`)
    const first = await settle(d, body)
    expect(first.status).toBe(422)
    await d.call('/api/local/faucet', { body: { to: broke.address, token: 'USDC', amount: '1' } })
    expect(await settle(d, body)).toEqual(first)
    expect(await localBase(d).balance('USDC', broke.address)).toBe(1_000_000n)
    const st = await d.raw(
      `/facilitator/status/${(body.paymentPayload as any).extensions['payment-identifier'].info.id}`,
    )
    expect(st).toMatchObject({ status: 200, body: { status: 'failed', reason: first.body.errorReason } })
  })

  it('concurrent settles of one id and payload transfer once and all answer the same transaction', async () => {
    const r = requirements(d, { symbol: 'USDC', amount: '0.01', payTo, method: 'eip3009' })
    const body = withId(await eip3009Body(d, payer, r), `pay_race_${Date.now()}_0123`)
    const before = await balance()
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(d, 'settle', body)))
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200))
    expect(new Set(answers.map((a) => a.body.transaction)).size).toBe(1)
    expect((await balance()) - before).toBe(BigInt(PRICE))
  })
})

function parxFetchWithId(f: typeof fetch, id: string): typeof fetch {
  return parxBuyerVia(f, () => id)
}
function parxBuyerVia(f: typeof fetch, paymentId?: () => string): typeof fetch {
  return parxBuyer(d, { evm: payer }, undefined, f, paymentId)
}
