import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../../../networks/registry.js'
import { decodeHeader, encodeHeader } from '../wire.js'
import type { SellerHooks } from './hooks.js'
import { paymentGate } from './middleware.js'

/**
 * The seller middleware's hooks on a real Node HTTP server. The facilitator answers from a
 * recorder (fetch option): under test is when each hook runs, what an abort does to the answer,
 * and that nothing is verified, run or settled past an abort.
 */
const NETWORK = networks['local-base']!.caip2
const ASSET = '0x00000000000000000000000000000000000000a5'
const PAY_TO = '0x00000000000000000000000000000000000000b0'
let calls: string[] = []
const facilitatorFetch = (async (url: string | URL, init?: RequestInit) => {
  const path = new URL(String(url)).pathname
  if (path.endsWith('/supported')) {
    const extra = { asset: ASSET, symbol: 'PUSD', name: 'PUSD', version: '1', assetTransferMethod: 'erc2612' }
    return Response.json({
      kinds: [
        { x402Version: 2, scheme: 'exact', network: NETWORK, extra },
        { x402Version: 1, scheme: 'exact', network: 'local-base', extra },
      ],
      extensions: [],
      signers: {},
    })
  }
  const body = JSON.parse(String(init?.body)) as { paymentPayload: { payload: { fail?: string } } }
  if (path.endsWith('/verify'))
    return (calls.push('facilitator-verify'), Response.json({ isValid: true, payer: '0xpayer' }))
  calls.push('facilitator-settle')
  return Response.json(
    body.paymentPayload.payload.fail
      ? { success: false, errorReason: body.paymentPayload.payload.fail, transaction: '', network: NETWORK }
      : { success: true, payer: '0xpayer', transaction: '0xtx', network: NETWORK },
  )
}) as typeof fetch

const hooks: SellerHooks[] = []
let server: Server
let base: string
beforeAll(async () => {
  server = createServer((req, res) => {
    const gate = paymentGate({
      facilitator: { url: 'http://facilitator.invalid', fetch: facilitatorFetch },
      routes: {
        'GET /paid': {
          prices: [{ network: NETWORK, asset: 'PUSD', amount: '100', payTo: PAY_TO }],
          description: 'a paid thing',
        },
        'GET /listed': {
          prices: [{ network: NETWORK, asset: 'PUSD', amount: '100', payTo: PAY_TO }],
          discoverable: true,
        },
      },
      hooks,
    })
    void gate(req, res, () => {
      calls.push('handler')
      res.end('paid content')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

async function pay(payload: Record<string, unknown> = { signature: '0x01' }) {
  const offer = decodeHeader<{ accepts: Record<string, unknown>[] }>(
    (await fetch(`${base}/paid`)).headers.get('payment-required'),
  )!.accepts[0]
  calls = []
  const res = await fetch(`${base}/paid`, {
    headers: { 'payment-signature': encodeHeader({ x402Version: 2, accepted: offer, payload }) },
  })
  return {
    status: res.status,
    body: await res.text(),
    required: decodeHeader<{ error: string }>(res.headers.get('payment-required')),
  }
}
const use = (...h: SellerHooks[]) => void hooks.splice(0, hooks.length, ...h)

describe('seller middleware hooks', () => {
  it('run in order around verify, the handler and settle; after-settle sees the outcome before the answer goes out', async () => {
    use({
      onBeforeVerify: async (c) => void calls.push(`before-verify:${c.requirements.payTo === PAY_TO}`),
      onAfterVerify: async (c) => void calls.push(`after-verify:${c.result.isValid}`),
      onBeforeSettle: async () => void calls.push('before-settle'),
      onAfterSettle: async (c) => {
        await new Promise((r) => setTimeout(r, 20))
        calls.push(`after-settle:${c.result.transaction}:${c.resource.url.endsWith('/paid')}`)
      },
    })
    const r = await pay()
    expect(r).toMatchObject({ status: 200, body: 'paid content' })
    expect(calls).toEqual([
      'before-verify:true',
      'facilitator-verify',
      'after-verify:true',
      'handler',
      'before-settle',
      'facilitator-settle',
      'after-settle:0xtx:true',
    ])
  })

  it('an after-verify abort answers 402 with its reason: the handler does not run and nothing is settled', async () => {
    use(
      { onAfterVerify: async () => ({ abort: true, reason: 'payer_not_allowed' }) },
      { onAfterVerify: async () => void calls.push('second') },
    )
    const r = await pay()
    expect(r.status).toBe(402)
    expect(r.required?.error).toBe('payer_not_allowed')
    expect(calls).toEqual(['facilitator-verify'])
  })

  it('a before-verify abort skips the facilitator; a before-settle abort discards the handler answer and charges nothing', async () => {
    use({ onBeforeVerify: async () => ({ abort: true, reason: 'closed_today' }) })
    expect(await pay()).toMatchObject({ status: 402, required: { error: 'closed_today' } })
    expect(calls).toEqual([])
    use({ onBeforeSettle: async () => ({ abort: true, reason: 'quota_reached' }) })
    const r = await pay()
    expect(r).toMatchObject({ status: 402, required: { error: 'quota_reached' } })
    expect(r.body).not.toContain('paid content')
    expect(calls).toEqual(['facilitator-verify', 'handler'])
  })

  it('after-settle hooks see a failed settlement too; a hook that throws does not change the answer', async () => {
    const seen: unknown[] = []
    use(
      {
        onAfterSettle: async () => {
          throw new Error('boom')
        },
      },
      { onAfterSettle: async (c) => void seen.push(c.result.errorReason) },
    )
    const r = await pay({ signature: '0x01', fail: 'insufficient_funds' })
    expect(r).toMatchObject({ status: 402, required: { error: 'insufficient_funds' } })
    expect(seen).toEqual(['insufficient_funds'])
  })

  it('a discoverable route declares the bazaar extension in v2 and discoverable in v1', async () => {
    const res = await fetch(`${base}/listed`)
    const v2 = decodeHeader<{ extensions: { bazaar: { info: { input: { type: string; method: string } } } } }>(
      res.headers.get('payment-required'),
    )!
    expect(v2.extensions.bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' })
    const v1 = (await res.json()) as {
      accepts: { outputSchema: { input: { discoverable: boolean; method: string } } }[]
    }
    expect(v1.accepts[0]!.outputSchema.input).toMatchObject({ discoverable: true, method: 'GET' })
    expect(
      decodeHeader<{ extensions?: unknown }>((await fetch(`${base}/paid`)).headers.get('payment-required'))!.extensions,
    ).toBeUndefined()
  })
})
