import { HTTPFacilitatorClient } from '@x402/core/server'
import { type DiscoveryExtension, validateDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks } from '../src/networks/registry.js'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { evmPayer } from './helpers/x402.js'
import { officialBuyer, parxBuyer } from './helpers/x402-buyers.js'

/**
 * The bazaar discovery extension on a real daemon: sellers opt endpoints in, the facilitator lists
 * them at /discovery/resources with the terms their 402 offers, and the official @x402/extensions
 * client (withBazaar) reads the listing, pages it and filters it by type.
 */
let d: TestDaemon
let seller: PlatformClient
let userKey: string

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  ;({ userKey } = await op.createUser({ body: { name: 'seller' } }))
  seller = createPlatformClient({ url: d.urls.platform, userKey })
}, 120_000)
afterAll(async () => {
  await d?.close()
})

const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: d.urls.facilitator })).extensions.bazaar

describe('bazaar discovery', () => {
  it('lists only opted-in endpoints, with their 402 terms; the official client reads, pages and filters it', async () => {
    const payTo = '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a'
    // The daemon's own health route stands in for an upstream that answers.
    const common = {
      upstreamUrl: `${d.urls.api}/api/health`,
      price: '0.05',
      network: 'local-base',
      token: 'PUSD',
      payTo,
    }
    const listed = await seller.createEndpoint({
      body: { ...common, name: 'weather', description: 'Weather for a city, as JSON', discoverable: true },
    })
    const hidden = await seller.createEndpoint({ body: { ...common, name: 'private' } })
    const second = await seller.createEndpoint({ body: { ...common, price: '1', token: 'USDC', discoverable: true } })
    expect([listed.discoverable, hidden.discoverable]).toEqual([true, false])

    const supported = await d.call<{ extensions: string[] }>('/facilitator/supported')
    expect(supported.extensions).toContain('bazaar')

    const all = await bazaar().listResources()
    expect(all.x402Version).toBe(2)
    expect(all.items.map((i) => i.resource)).toEqual([listed.url, second.url])
    expect(all.pagination).toEqual({ limit: 20, offset: 0, total: 2 })
    const item = all.items[0]!
    expect(item).toMatchObject({ type: 'http', x402Version: 2, description: 'Weather for a city, as JSON' })
    expect(Date.parse(item.lastUpdated)).not.toBeNaN()
    // The same terms and declaration a GET of the paid URL answers with.
    const unpaid = await fetch(listed.url)
    const v2 = decodeHeader<{ accepts: unknown[]; extensions: Record<string, unknown> }>(
      unpaid.headers.get('payment-required'),
    )!
    expect(item.accepts).toEqual(v2.accepts)
    expect(item.extensions?.bazaar).toEqual(v2.extensions.bazaar)
    expect(validateDiscoveryExtension(item.extensions!.bazaar as DiscoveryExtension)).toEqual({ valid: true })
    const v1 = (await unpaid.json()) as { accepts: { outputSchema?: { input: { discoverable: boolean } } }[] }
    expect(v1.accepts[0]!.outputSchema?.input.discoverable).toBe(true)
    const hiddenV2 = decodeHeader<{ extensions?: Record<string, unknown> }>(
      (await fetch(hidden.url)).headers.get('payment-required'),
    )!
    expect(hiddenV2.extensions?.bazaar).toBeUndefined()

    const page2 = await bazaar().listResources({ limit: 1, offset: 1 })
    expect(page2.items.map((i) => i.resource)).toEqual([second.url])
    expect(page2.pagination).toEqual({ limit: 1, offset: 1, total: 2 })
    expect((await bazaar().listResources({ type: 'mcp' })).items).toEqual([])
    expect((await bazaar().listResources({ type: 'http' })).pagination.total).toBe(2)
    expect((await bazaar().listResources({ network: networks['local-base']!.caip2 })).pagination.total).toBe(2)
    expect((await bazaar().listResources({ network: 'eip155:1' })).pagination.total).toBe(0)
    expect(
      (await bazaar().listResources({ payTo: '0x000000000000000000000000000000000000dEaD' })).pagination.total,
    ).toBe(0)
    expect((await bazaar().listResources({ payTo })).pagination.total).toBe(2)
  }, 60_000)

  it('a listed endpoint is paid as before: by the official @x402/fetch buyer and by a platform agent', async () => {
    const listed = (await bazaar().listResources()).items
    const usdc = listed.find((i) => i.accepts[0]!.extra.assetTransferMethod === 'eip3009')!
    const payer = await evmPayer(d, ['USDC'], '5')
    const res = await officialBuyer(d, payer)(usdc.resource)
    expect(res.status).toBe(200)
    expect(res.headers.get('payment-response')).toBeTruthy()
    // x402 v1: the requirement carries outputSchema (discoverable) to the facilitator, which pays it as before.
    const v1 = await parxBuyer(d, { evm: payer }, 1)(usdc.resource)
    expect(v1.status).toBe(200)
    expect(v1.headers.get('x-payment-response')).toBeTruthy()
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const buyer = createPlatformClient({
      url: d.urls.platform,
      userKey: (await op.createUser({ body: { name: 'buyer' } })).userKey,
    })
    const agent = await buyer.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: agent.wallet, token: 'PUSD', amount: '1' } })
    const pusd = listed.find((i) => i.accepts[0]!.extra.assetTransferMethod !== 'eip3009')!
    const paid = await buyer.pay({ params: { id: agent.id }, body: { url: pusd.resource } })
    expect(paid.dryRun ? 0 : paid.status).toBe(200)
  }, 60_000)

  it('opting out (or in) and deleting change the listing at once; bad paging is a 400', async () => {
    const before = (await bazaar().listResources({ limit: 100 })).items.map((i) => i.resource)
    const { endpoints } = await seller.listEndpoints({})
    const [a, b] = endpoints.filter((e) => e.discoverable)
    const hidden = endpoints.find((e) => !e.discoverable)!
    const off = await seller.updateEndpoint({ params: { id: a!.id }, body: { discoverable: false } })
    expect(off.discoverable).toBe(false)
    await seller.updateEndpoint({ params: { id: hidden.id }, body: { discoverable: true } })
    await seller.deleteEndpoint({ params: { id: b!.id } })
    const after = (await bazaar().listResources({ limit: 100 })).items.map((i) => i.resource)
    expect(before).toContain(a!.url)
    expect(after).toEqual([hidden.url])
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1']) {
      const r = await d.raw(`/facilitator/discovery/resources?${q}`)
      expect(r.status).toBe(400)
      expect(r.body.code).toBe('BAD_REQUEST')
    }
    const other = await d.raw(`/api/endpoints/${hidden.id}`, {
      method: 'POST',
      headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(other.status).toBe(400)
  }, 60_000)
})
