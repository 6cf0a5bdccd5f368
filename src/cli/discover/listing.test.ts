import { describe, expect, it } from 'vitest'
import { networks } from '../../networks/registry.js'
import { decimalGreater, listingPage, type Payer, readItems, sellersOf, type TokenBook, tokenKey } from './listing.js'

const BASE = networks.base!.caip2
const PUSD = '0x00000000000000000000000000000000000000a1'
const USDC = '0x00000000000000000000000000000000000000c1'
const book: TokenBook = new Map([
  [tokenKey(BASE, PUSD), { symbol: 'PUSD', decimals: 18 }],
  [tokenKey(BASE, USDC), { symbol: 'USDC', decimals: 6 }],
])
const payer: Payer = { id: 'a', network: 'base', caip2: BASE, assets: [PUSD] }
const item = (resource: string, accepts: unknown[], extra: Record<string, unknown> = {}) => ({
  resource,
  type: 'http',
  x402Version: 2,
  accepts,
  lastUpdated: '2026-11-01T00:00:00Z',
  ...extra,
})
const req = (network: string, asset: string, amount: string, scheme = 'exact') => ({
  scheme,
  network,
  amount,
  asset,
  payTo: '0x00000000000000000000000000000000000000ff',
  maxTimeoutSeconds: 60,
  extra: {},
})

const page = listingPage.parse({
  x402Version: 2,
  items: [
    item('https://a.test/weather', [req(BASE, PUSD, '10000000000000000')], {
      description: 'Weather by city',
      tags: ['forecast'],
    }),
    item('https://b.test/usdc', [req(BASE, USDC, '2500000')], { serviceName: 'B' }),
    item('https://c.test/sepolia', [req('eip155:84532', USDC, '1000')]),
    item('https://d.test/upto', [req(BASE, PUSD, '1', 'upto')]),
    {
      resource: 'https://v1.test',
      accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '5000000000000000000', asset: PUSD }],
    },
    { resource: 42 },
    'not even an object',
  ],
})

describe('a bazaar listing read as sellers', () => {
  it('reads v2 and v1 items, skipping what is not an item', () => {
    const { items, skipped } = readItems(page)
    expect(items.map((i) => i.resource)).toEqual([
      'https://a.test/weather',
      'https://b.test/usdc',
      'https://c.test/sepolia',
      'https://d.test/upto',
      'https://v1.test',
    ])
    expect(skipped).toBe(2)
  })

  it('prices in the token units when the asset is known, and says why the agent cannot pay', () => {
    const sellers = sellersOf(readItems(page).items, book, payer, {})
    expect(sellers.map((s) => [s.url, s.price, s.token, s.network, s.payable, s.notPayable])).toEqual([
      ['https://a.test/weather', '0.01', 'PUSD', 'base', true, undefined],
      ['https://b.test/usdc', '2.5', 'USDC', 'base', false, "in USDC, not one of this agent's tokens"],
      ['https://c.test/sepolia', null, null, 'base-sepolia', false, 'on base-sepolia; this agent is on base'],
      ['https://d.test/upto', '0.000000000000000001', 'PUSD', 'base', false, 'in the upto scheme; agents pay exact'],
      ['https://v1.test', '5', 'PUSD', 'base', true, undefined],
    ])
    // Without an agent nothing is marked.
    expect(sellersOf(readItems(page).items, book, null, {}).every((s) => s.payable === null)).toBe(true)
  })

  it('filters by words, network, token and max price (an unknown price never passes --max-price)', () => {
    const items = readItems(page).items
    const urls = (f: Parameters<typeof sellersOf>[3]) => sellersOf(items, book, payer, f).map((s) => s.url)
    expect(urls({ query: 'WEATHER city' })).toEqual(['https://a.test/weather'])
    expect(urls({ query: 'forecast' })).toEqual(['https://a.test/weather'])
    expect(urls({ query: 'weather rain' })).toEqual([])
    expect(urls({ network: 'base-sepolia' })).toEqual(['https://c.test/sepolia'])
    expect(urls({ network: 'eip155:84532' })).toEqual(['https://c.test/sepolia'])
    expect(urls({ token: 'usdc' })).toEqual(['https://b.test/usdc'])
    expect(urls({ maxPrice: '2.5' })).toEqual(['https://a.test/weather', 'https://b.test/usdc', 'https://d.test/upto'])
    expect(urls({ maxPrice: '0.01' })).toEqual(['https://a.test/weather', 'https://d.test/upto'])
  })

  it('compares decimals exactly', () => {
    expect(decimalGreater('0.1', '0.09')).toBe(true)
    expect(decimalGreater('2.50', '2.5')).toBe(false)
    expect(decimalGreater('10', '9.999999999999999999')).toBe(true)
  })
})
