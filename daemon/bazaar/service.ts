import { getAddress } from 'viem'
import { networks } from '../../src/networks/registry.js'
import {
  DISCOVERY_PAGE,
  type DiscoveryQuery,
  type DiscoveryResource,
  type DiscoveryResourcesResponse,
} from '../../src/sdk/x402/bazaar.js'
import { bazaarExtension } from '../../src/sdk/x402/seller/bazaar.js'
import { offersFor } from '../../src/sdk/x402/seller/offers.js'
import { EXACT, type SupportedResponse } from '../../src/sdk/x402/types.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { type EndpointRow, type EndpointStore, paidUrl } from '../seller/endpoints.js'
import { endpointPrices } from '../seller/prices.js'

/** The bazaar's surface: the platform's seller endpoints that opted in, as paid resources. */
export type BazaarService = {
  list(q: DiscoveryQuery): Promise<DiscoveryResourcesResponse>
}

export type BazaarDeps = {
  endpoints: Pick<EndpointStore, 'discoverable'>
  /** What the facilitator serves (the offers' assets, names and spenders come from it, as in the 402). */
  supported(): SupportedResponse
  evm: Record<string, EvmChain>
  platformUrl: string
}

const EMPTY = (limit: number, offset: number): DiscoveryResourcesResponse => ({
  x402Version: 2,
  items: [],
  pagination: { limit, offset, total: 0 },
})

/**
 * Lists discoverable endpoints with the same terms their 402 offers (v2 requirements, reference
 * methods first) and the bazaar declaration a GET would carry. Filters the reference defines:
 * type, payTo, scheme, network (CAIP-2 or v1 name), extensions; paging by limit and offset.
 */
export function bazaarService(d: BazaarDeps): BazaarService {
  return {
    async list(q) {
      const limit = q.limit ?? DISCOVERY_PAGE.default
      const offset = q.offset ?? 0
      // Everything we list is an http resource in the exact scheme, declaring the bazaar extension.
      if (
        (q.type && q.type !== 'http') ||
        (q.scheme && q.scheme !== EXACT) ||
        (q.extensions && q.extensions !== 'bazaar')
      )
        return EMPTY(limit, offset)
      const wanted = q.network
        ? Object.values(networks)
            .filter((n) => n.caip2 === q.network || n.legacyName === q.network || n.key === q.network)
            .map((n) => n.key)
        : undefined
      const payTo = q.payTo && /^0x[0-9a-fA-F]{40}$/.test(q.payTo) ? q.payTo : undefined
      if (q.payTo && !payTo) return EMPTY(limit, offset)
      const { rows, total } = await d.endpoints.discoverable({
        networks: wanted,
        payTo: payTo && checksum(payTo),
        limit,
        offset,
      })
      const supported = d.supported()
      return { x402Version: 2, items: rows.flatMap((e) => item(e, supported)), pagination: { limit, offset, total } }
    },
  }

  function item(e: EndpointRow, supported: SupportedResponse): DiscoveryResource[] {
    const chain = d.evm[e.network]
    if (!chain?.tokens[e.token]) return []
    const resource = paidUrl(d.platformUrl, e.id)
    const description = e.description ?? e.name ?? ''
    let accepts
    try {
      accepts = offersFor(endpointPrices(e, chain), supported, { url: resource, description, mimeType: '' }).map(
        (o) => o.v2,
      )
    } catch {
      return [] // the facilitator does not serve this token now: nothing a buyer could pay
    }
    return [
      {
        resource,
        type: 'http',
        x402Version: 2,
        accepts,
        lastUpdated: new Date(Number(e.updated_at ?? e.created_at)).toISOString(),
        ...(description ? { description } : {}),
        extensions: { bazaar: bazaarExtension('GET') },
      },
    ]
  }
}

const checksum = (a: string) => getAddress(a.toLowerCase())
