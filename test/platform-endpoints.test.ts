import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Seller endpoints over HTTP against a real daemon: a user registers an upstream, the platform
 * serves it at /paid/<id> behind x402 (v2 header and v1 body) through our facilitator; a buyer
 * agent pays it with POST /pay; an upstream that fails is never charged; tenants are separate.
 */
let d: TestDaemon
let upstream: { url: string; close(): Promise<void> }
let seller: { userKey: string; client: PlatformClient }
let other: { userKey: string; client: PlatformClient }

async function newUser(name: string) {
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  const { userKey } = await op.createUser({ body: { name } })
  return { userKey, client: createPlatformClient({ url: d.urls.platform, userKey }) }
}

/**
 * The paid proxy's upstream timeout (config `platform.paidUpstreamTimeoutMs`, default 20 s), lowered.
 * The slow upstream answers after three times that, well within the default: the last test's 504
 * proves the setting reaches the paid URL (without it the buyer would get the late 200).
 */
const UPSTREAM_TIMEOUT_MS = 2_000

beforeAll(async () => {
  d = await startTestDaemon({ env: { PARX_PAID_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) } })
  const app = express()
  app.get('/data', (req, res) => void res.json({ data: 'upstream', q: req.query.q ?? null }))
  app.get('/slow', (_req, res) => {
    setTimeout(() => void res.json({ data: 'late' }), 3 * UPSTREAM_TIMEOUT_MS).unref()
  })
  app.get('/fail', (_req, res) => void res.status(500).json({ error: 'upstream broke' }))
  upstream = await listen(app)
  seller = await newUser('seller')
  other = await newUser('other')
}, 120_000)
afterAll(async () => {
  await upstream?.close()
  await d?.close()
})

const bal = (owner: Address) => {
  const chain = d.services.base
  return chain.client.readContract({
    address: chain.tokens.PUSD!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}

describe('seller endpoints', () => {
  it('registers, serves behind x402, is paid by a buyer agent into the seller agent; a failing upstream is not charged', async () => {
    const payee = await seller.client.createAgent({ body: { name: 'payee', network: 'local-base' } })
    const e = await seller.client.createEndpoint({
      body: {
        name: 'data',
        upstreamUrl: `${upstream.url}/data`,
        price: '0.02',
        network: 'local-base',
        token: 'pusd',
        payTo: payee.id,
      },
    })
    expect(e).toMatchObject({
      url: `${d.urls.platform}/paid/${e.id}`,
      price: '0.02',
      token: 'PUSD',
      payTo: payee.wallet,
      payToAgentId: payee.id,
    })
    expect((await seller.client.listEndpoints({})).endpoints).toEqual([e])
    expect((await seller.client.whoamiUser({})).endpoints).toBe(1)

    const unpaid = await fetch(e.url)
    expect(unpaid.status).toBe(402)
    expect(unpaid.headers.get('cache-control')).toBe('no-store')
    const v2 = decodeHeader<{ accepts: { amount: string; payTo: string }[] }>(unpaid.headers.get('payment-required'))!
    expect(v2.accepts[0]).toMatchObject({ amount: (2n * 10n ** 16n).toString(), payTo: payee.wallet })
    expect((await unpaid.json()).x402Version).toBe(1)

    const b = await other.client.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: b.wallet, token: 'PUSD', amount: '1' } })
    const paid = await other.client.pay({ params: { id: b.id }, body: { url: `${e.url}?q=7` } })
    if (paid.dryRun) throw new Error('not a dry run')
    expect(paid.status).toBe(200)
    expect(JSON.parse(paid.body)).toEqual({ data: 'upstream', q: '7' })
    expect(paid.headers['cache-control']).toBe('private')
    expect(paid.receipt).toMatchObject({ amount: '0.02', token: 'PUSD', payTo: payee.wallet })
    expect(await bal(payee.wallet)).toBe(2n * 10n ** 16n)
    expect(await bal(b.wallet)).toBe(10n ** 18n - 2n * 10n ** 16n)

    const broken = await seller.client.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/fail`,
        price: '0.02',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee.wallet,
      },
    })
    const failed = await d.raw(`/api/agents/${b.id}/pay`, {
      method: 'POST',
      headers: { 'x-user-key': other.userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: broken.url }),
    })
    expect(failed.body).toMatchObject({ code: 'SELLER_FAILED', charged: false })
    expect(await bal(b.wallet)).toBe(10n ** 18n - 2n * 10n ** 16n)
    expect(await bal(payee.wallet)).toBe(2n * 10n ** 16n)
  }, 60_000)

  it('tenancy: another user sees 404; deleted endpoints stop being served; bad input is refused', async () => {
    const e = await seller.client.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/data`,
        price: '1',
        network: 'local-base',
        token: 'PUSD',
        payTo: '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a',
      },
    })
    const oh = { 'x-user-key': other.userKey }
    expect((await d.raw(`/api/endpoints/${e.id}`, { headers: oh })).body.code).toBe('NOT_FOUND')
    expect((await d.raw(`/api/endpoints/${e.id}`, { method: 'DELETE', headers: oh })).body.code).toBe('NOT_FOUND')
    const theirAgent = await other.client.createAgent({ body: { name: 'x', network: 'local-base' } })
    const post = (body: unknown) =>
      d.raw('/api/endpoints', {
        method: 'POST',
        headers: { 'x-user-key': seller.userKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const base = { upstreamUrl: `${upstream.url}/data`, price: '1', network: 'local-base', token: 'PUSD' }
    expect((await post({ ...base, payTo: theirAgent.id })).body.code).toBe('NOT_FOUND')
    expect((await post({ ...base, token: 'DOGE', payTo: theirAgent.wallet })).body.code).toBe('UNKNOWN_TOKEN')
    expect((await post({ ...base, network: 'local-solana', payTo: theirAgent.wallet })).body.code).toBe(
      'NETWORK_UNSUPPORTED',
    )
    expect((await post({ ...base, upstreamUrl: 'file:///etc/passwd', payTo: theirAgent.wallet })).body.code).toBe(
      'BAD_REQUEST',
    )
    expect(await seller.client.deleteEndpoint({ params: { id: e.id } })).toEqual({ id: e.id, deleted: true })
    expect((await fetch(e.url)).status).toBe(404)
    expect((await d.raw(`/api/endpoints/${e.id}`, { headers: { 'x-user-key': seller.userKey } })).body.code).toBe(
      'NOT_FOUND',
    )
  })

  it('an upstream slower than the timeout: the buyer gets 504 from the paid URL and is not charged', async () => {
    const payee = await seller.client.createAgent({ body: { name: 'payee', network: 'local-base' } })
    const e = await seller.client.createEndpoint({
      body: {
        upstreamUrl: `${upstream.url}/slow`,
        price: '0.01',
        network: 'local-base',
        token: 'PUSD',
        payTo: payee.id,
      },
    })
    const b = await other.client.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: b.wallet, token: 'PUSD', amount: '1' } })
    const r = await d.raw(`/api/agents/${b.id}/pay`, {
      method: 'POST',
      headers: { 'x-user-key': other.userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: e.url }),
    })
    expect(r.body).toMatchObject({ code: 'SELLER_FAILED', charged: false, transaction: null })
    expect(r.body.error).toMatch(/504/)
    expect(await bal(b.wallet)).toBe(10n ** 18n)
    expect(await bal(payee.wallet)).toBe(0n)
    // Nothing moved yet, but the permit stays valid until its deadline: the price stays reserved until then.
    expect(r.body.reservedUntil).toEqual(expect.any(String))
    expect((await other.client.getLimits({ params: { id: b.id } })).spentTodayUsd).toBe('0.01')
  }, 60_000)
})
