import { z } from 'zod'
import { networks } from '../../networks/registry.js'
import { fromBaseUnits } from '../../sdk/units.js'

/**
 * A facilitator's bazaar listing (`GET {facilitator}/discovery/resources`, the x402 bazaar
 * extension's `DiscoveryResourcesResponse`) read as sellers an agent could pay. The page is
 * checked with zod; an item that is not in the reference's shape is skipped and counted, not
 * allowed to hide the others. Terms are read as x402 v2 (`amount`) or v1 (`maxAmountRequired`).
 */
const requirement = z.object({
  scheme: z.string().max(64),
  network: z.string().max(128),
  amount: z.string().max(80).optional(),
  maxAmountRequired: z.string().max(80).optional(),
  asset: z.string().max(128),
  payTo: z.string().max(128).optional(),
  extra: z.record(z.unknown()).optional(),
})
const resource = z.object({
  resource: z.string().max(4096),
  type: z.string().max(32).optional(),
  x402Version: z.number().optional(),
  accepts: z.array(requirement).min(1).max(64),
  lastUpdated: z.string().max(64).optional(),
  description: z.string().max(4096).optional(),
  serviceName: z.string().max(256).optional(),
  tags: z.array(z.string().max(64)).max(64).optional(),
  extensions: z.record(z.unknown()).optional(),
})
export const listingPage = z.object({
  x402Version: z.number().optional(),
  items: z.array(z.unknown()).max(1000),
  pagination: z.object({ limit: z.number(), offset: z.number(), total: z.number() }).partial().optional(),
})
export type ListedResource = z.infer<typeof resource>

/** Tokens whose symbol and decimals we know, by CAIP-2 network and lower-case asset address. */
export type TokenBook = Map<string, { symbol: string; decimals: number }>
export const tokenKey = (caip2: string, asset: string) => `${caip2}|${asset.toLowerCase()}`

/** The agent doing the discovering: its network and the assets it can pay with. */
export type Payer = { id: string; network: string; caip2: string; assets: string[] }

export type Offer = {
  /** The registry's network key when the network is one parx knows, else the listing's id. */
  network: string
  caip2: string
  scheme: string
  /** The token's symbol when known, else null (see `asset`). */
  token: string | null
  asset: string
  /** In the token's units when its decimals are known, else null (see `amount`). */
  price: string | null
  /** Base units, as listed. */
  amount: string
  payTo: string | null
  /** Whether this agent can pay it (its network, one of its tokens, the exact scheme); null without an agent. */
  payable: boolean | null
  /** Why not, when it cannot. */
  notPayable?: string
}

export type Seller = {
  name: string | null
  url: string
  description: string | null
  /** The first offer this agent can pay, else the first offer: what the text output shows. */
  network: string
  token: string | null
  price: string | null
  payable: boolean | null
  notPayable?: string
  offers: Offer[]
  lastUpdated: string | null
}

export type SellerFilter = { query?: string; network?: string; token?: string; maxPrice?: string }

const byCaip2 = (id: string) => Object.values(networks).find((n) => n.caip2 === id || n.legacyName === id)

/** Items of one page that are in the reference's shape, and how many were not. */
export function readItems(page: z.infer<typeof listingPage>): { items: ListedResource[]; skipped: number } {
  const items: ListedResource[] = []
  let skipped = 0
  for (const raw of page.items) {
    const r = resource.safeParse(raw)
    if (r.success) items.push(r.data)
    else skipped++
  }
  return { items, skipped }
}

export function offerOf(r: z.infer<typeof requirement>, book: TokenBook, payer: Payer | null): Offer {
  const spec = byCaip2(r.network)
  const caip2 = spec?.caip2 ?? r.network
  const amount = r.amount ?? r.maxAmountRequired ?? ''
  const token = book.get(tokenKey(caip2, r.asset)) ?? null
  let price: string | null = null
  if (token && /^\d{1,78}$/.test(amount)) price = fromBaseUnits(BigInt(amount), token.decimals)
  const offer: Offer = {
    network: spec?.key ?? r.network,
    caip2,
    scheme: r.scheme,
    token: token?.symbol ?? null,
    asset: r.asset,
    price,
    amount,
    payTo: r.payTo ?? null,
    payable: null,
  }
  if (payer) {
    const why =
      caip2 !== payer.caip2
        ? `on ${offer.network}; this agent is on ${payer.network}`
        : !payer.assets.includes(r.asset.toLowerCase())
          ? `in ${offer.token ?? r.asset}, not one of this agent's tokens`
          : r.scheme !== 'exact'
            ? `in the ${r.scheme} scheme; agents pay exact`
            : undefined
    offer.payable = why === undefined
    if (why) offer.notPayable = why
  }
  return offer
}

/** Whether an offer passes the network, token and price filters (a price we cannot read fails --max-price). */
export function offerMatches(o: Offer, f: SellerFilter): boolean {
  if (f.network && f.network !== o.network && f.network !== o.caip2) return false
  if (f.token && (o.token ?? '').toUpperCase() !== f.token.toUpperCase()) return false
  if (f.maxPrice !== undefined && (o.price === null || decimalGreater(o.price, f.maxPrice))) return false
  return true
}

/**
 * The sellers of listed resources that match: every query word somewhere in its text, and at least one offer through
 * the filters.
 */
export function sellersOf(
  items: readonly ListedResource[],
  book: TokenBook,
  payer: Payer | null,
  f: SellerFilter,
): Seller[] {
  const words = (f.query ?? '').toLowerCase().split(/\s+/).filter(Boolean)
  const out: Seller[] = []
  for (const it of items) {
    if (words.length) {
      const info = JSON.stringify(
        (it.extensions as { bazaar?: { info?: unknown } } | undefined)?.bazaar?.info ?? '',
      ).slice(0, 4096)
      const text = [it.resource, it.description ?? '', it.serviceName ?? '', ...(it.tags ?? []), info]
        .join(' ')
        .toLowerCase()
      if (!words.every((w) => text.includes(w))) continue
    }
    const offers = it.accepts.map((r) => offerOf(r, book, payer)).filter((o) => offerMatches(o, f))
    if (!offers.length) continue
    const shown = offers.find((o) => o.payable) ?? offers[0]!
    out.push({
      name: it.serviceName ?? null,
      url: it.resource,
      description: it.description || null,
      network: shown.network,
      token: shown.token,
      price: shown.price,
      payable: shown.payable,
      ...(shown.notPayable ? { notPayable: shown.notPayable } : {}),
      offers,
      lastUpdated: it.lastUpdated ?? null,
    })
  }
  return out
}

/** a > b for non-negative decimal strings, exactly. */
export function decimalGreater(a: string, b: string): boolean {
  const [ai, af = ''] = a.split('.')
  const [bi, bf = ''] = b.split('.')
  const w = Math.max(af.length, bf.length)
  return BigInt(ai! + af.padEnd(w, '0')) > BigInt(bi! + bf.padEnd(w, '0'))
}
