import { Keypair } from '@solana/web3.js'
import { x402Client } from '@x402/core/client'
import { wrapFetchWithPayment as officialFetch } from '@x402/fetch'
import express from 'express'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { ParxSvmUptoClientScheme } from '../src/sdk/x402/plugins/svm-client.js'
import { reasons } from '../src/sdk/x402/reasons.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { settleAmount } from '../src/sdk/x402/seller/usage.js'
import { createSplPayload, keypairSigner } from '../src/sdk/x402/svm/delegated-spl.js'
import { createSplUptoPayload } from '../src/sdk/x402/svm/upto.js'
import type { PaymentRequirements, SupportedResponse } from '../src/sdk/x402/types.js'
import { decodeHeader, encodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { localSolana, settle, solanaPayer, solRequirements, verify, type X402Body } from './helpers/x402.js'
import { listen, parxBuyer } from './helpers/x402-buyers.js'

let d: TestDaemon
let seller: { url: string; close(): Promise<void> }
let payer: Keypair
const payTo = Keypair.generate().publicKey
const MAX = 2_000_000n // 2 USDC: the most one request may cost

const usdc = (who: Keypair['publicKey']) => localSolana(d).balance('USDC', who)
const balances = async () => ({ payer: await usdc(payer.publicKey), seller: await usdc(payTo) })

/** Our buyer over a fetch that records the PAYMENT-SIGNATURE headers it sends. */
function buyer(sent: string[] = []): typeof fetch {
  const recording: typeof fetch = async (input, init) => {
    const sig = new Headers(init?.headers).get('PAYMENT-SIGNATURE')
    if (sig) sent.push(sig)
    return fetch(input, init)
  }
  return parxBuyer(d, { solana: payer }, undefined, recording)
}

/** The upto requirements the gate offers for MAX, as /supported describes the kind. */
const uptoRequirements = (amount = MAX): PaymentRequirements => ({
  ...solRequirements(d, { symbol: 'USDC', amount, payTo: payTo.toBase58() }),
  scheme: 'upto',
})
const body = (r: PaymentRequirements, payload: Record<string, unknown>): X402Body => ({
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: r, payload },
  paymentRequirements: r,
})

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await solanaPayer(d, 'USDC', '100')
  await localSolana(d).approve(payer, 'USDC', 50_000_000n)
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /metered': {
          prices: [
            { network: 'local-solana', asset: 'USDC', amount: MAX.toString(), payTo: payTo.toBase58(), scheme: 'upto' },
          ],
        },
      },
    }),
  )
  app.get('/metered', (req, res) => {
    if (typeof req.query.use === 'string') settleAmount(res, req.query.use)
    res.json({ used: req.query.use ?? 'all' })
  })
  seller = await listen(app)
})
afterAll(async () => {
  await seller?.close()
  await d?.close()
})

describe('upto (metered) on Solana over delegated-spl', () => {
  it('is advertised in /supported once per Solana token, v2, with the fee payer and delegate', async () => {
    const s = (await d.call('/facilitator/supported')) as SupportedResponse
    const sol = localSolana(d)
    const kinds = s.kinds.filter((k) => k.scheme === 'upto' && k.network === sol.caip2)
    expect(kinds.map((k) => k.extra?.symbol).sort()).toEqual(Object.keys(sol.chain.mints).sort())
    for (const k of kinds) {
      expect(k).toMatchObject({
        x402Version: 2,
        extra: {
          assetTransferMethod: 'delegated-spl',
          feePayer: sol.facilitator.toBase58(),
          delegate: sol.facilitator.toBase58(),
          asset: sol.mint(String(k.extra!.symbol)).mint.toBase58(),
        },
      })
      expect(typeof k.extra!.decimals).toBe('number')
    }
  })

  it('moves exactly what the handler used when it is below the signed maximum', async () => {
    const before = await balances()
    const res = await buyer()(`${seller.url}/metered?use=1234567`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ used: '1234567' })
    const s = settlementOf(res)
    expect(s).toMatchObject({
      success: true,
      payer: payer.publicKey.toBase58(),
      network: localSolana(d).caip2,
      amount: '1234567',
    })
    expect(s!.transaction).not.toBe('')
    const after = await balances()
    expect(after.seller - before.seller).toBe(1_234_567n)
    expect(before.payer - after.payer).toBe(1_234_567n)
  })

  it('refuses to settle above the signed maximum, moving nothing and withholding the body', async () => {
    const before = await balances()
    const res = await buyer()(`${seller.url}/metered?use=${MAX + 1n}`)
    expect(res.status).toBe(402)
    const response = decodeHeader<{ success: boolean; errorReason: string; errorMessage: string }>(
      res.headers.get('PAYMENT-RESPONSE'),
    )
    expect(response).toMatchObject({ success: false, errorReason: reasons.uptoSettlementExceedsAmount })
    expect(response!.errorMessage).toContain(`more than the ${MAX} the payer signed for`)
    expect(await balances()).toEqual(before)
  })

  it('settles zero with no transaction, and the whole maximum when nothing is reported', async () => {
    const before = await balances()
    const none = await buyer()(`${seller.url}/metered?use=0`)
    expect(none.status).toBe(200)
    expect(settlementOf(none)).toMatchObject({ success: true, transaction: '', amount: '0' })
    expect(await balances()).toEqual(before)
    const all = await buyer()(`${seller.url}/metered`)
    expect(all.status).toBe(200)
    expect((await usdc(payTo)) - before.seller).toBe(MAX)
  })

  it('pays once per signature: a replay is answered or refused, never paid again', async () => {
    const sent: string[] = []
    const first = await buyer(sent)(`${seller.url}/metered?use=1000`)
    expect(first.status).toBe(200)
    expect(sent).toHaveLength(1)
    const before = await balances()
    // The same payment with its payment id: answered with the first settlement (idempotent).
    const same = await fetch(`${seller.url}/metered?use=1000`, { headers: { 'PAYMENT-SIGNATURE': sent[0]! } })
    expect(same.status).toBe(200)
    expect(settlementOf(same)?.transaction).toBe(settlementOf(first)!.transaction)
    // The same signature without the id: the authorization is spent.
    const { extensions: _id, ...payload } = decodeHeader<Record<string, unknown>>(sent[0])!
    const again = await fetch(`${seller.url}/metered?use=1000`, {
      headers: { 'PAYMENT-SIGNATURE': encodeHeader(payload) },
    })
    expect(again.status).toBe(402)
    const r = { ...(payload.accepted as PaymentRequirements), amount: '1000' }
    const replay = await settle(d, { x402Version: 2, paymentPayload: payload, paymentRequirements: r })
    expect(replay.body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
    // Also at verify, with the maximum as the terms: the nonce is spent.
    const spent = await verify(d, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: payload.accepted as Record<string, unknown>,
    })
    expect(spent).toMatchObject({ isValid: false, invalidReason: reasons.svmSplNonceUsed })
    expect(await balances()).toEqual(before)
  })

  it('at verify, refuses requirements whose amount is not the signed maximum', async () => {
    const r = uptoRequirements()
    const payload = await createSplUptoPayload(keypairSigner(payer), r)
    expect(await verify(d, body(r, payload))).toEqual({ isValid: true, payer: payer.publicKey.toBase58() })
    expect(
      await verify(d, { ...body(r, payload), paymentRequirements: { ...r, amount: String(MAX - 1n) } }),
    ).toMatchObject({ isValid: false, invalidReason: reasons.svmSplAmountMismatch })
    expect(
      await verify(d, { ...body(r, payload), paymentRequirements: { ...r, amount: String(MAX + 1n) } }),
    ).toMatchObject({ isValid: false, invalidReason: reasons.svmSplAmountMismatch })
    // Only our delegated-spl form is served: the reference's channel upto names no such method.
    const channel = { ...r, extra: { feePayer: r.extra.feePayer } }
    expect(await verify(d, body(channel, payload))).toMatchObject({
      isValid: false,
      invalidReason: reasons.unsupportedScheme,
    })
  })

  it('never reads an exact (delegated-spl) signature as upto, nor an upto one as exact', async () => {
    const before = await balances()
    const upto = uptoRequirements()
    const exact = solRequirements(d, { symbol: 'USDC', amount: MAX, payTo: payTo.toBase58() })
    const exactAsUpto = body(upto, await createSplPayload(keypairSigner(payer), exact))
    expect(await verify(d, exactAsUpto)).toMatchObject({ isValid: false, invalidReason: reasons.svmSplSignature })
    expect((await settle(d, exactAsUpto)).body).toMatchObject({ success: false, errorReason: reasons.svmSplSignature })
    const uptoAsExact = body(exact, await createSplUptoPayload(keypairSigner(payer), upto))
    expect(await verify(d, uptoAsExact)).toMatchObject({ isValid: false, invalidReason: reasons.svmSplSignature })
    expect((await settle(d, uptoAsExact)).body).toMatchObject({ success: false, errorReason: reasons.svmSplSignature })
    expect(await balances()).toEqual(before)
  })

  it('refuses a used amount the delegation no longer covers, moving nothing', async () => {
    const poor = await solanaPayer(d, 'USDC', '100')
    await localSolana(d).approve(poor, 'USDC', 500n)
    const r = uptoRequirements(400n)
    const b = body(r, await createSplUptoPayload(keypairSigner(poor), r))
    expect((await verify(d, b)).isValid).toBe(true)
    await localSolana(d).approve(poor, 'USDC', 100n)
    const before = await usdc(poor.publicKey)
    const out = await settle(d, { ...b, paymentRequirements: { ...r, amount: '300' } })
    expect(out.body).toMatchObject({ success: false, errorReason: reasons.svmDelegatedAmount })
    expect(await usdc(poor.publicKey)).toBe(before)
  })

  it('is paid by @x402/fetch with the ParxSvmUptoClientScheme plugin', async () => {
    const client = x402Client.fromConfig({
      schemes: [{ network: 'solana:*', client: new ParxSvmUptoClientScheme(keypairSigner(payer)) }],
      spendControls: false,
    })
    const before = await usdc(payTo)
    const res = await officialFetch(fetch, client)(`${seller.url}/metered?use=777`)
    expect(res.status).toBe(200)
    expect((await usdc(payTo)) - before).toBe(777n)
  })
})
