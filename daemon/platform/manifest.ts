import { networks, type Profile, profiles } from '../../src/networks/registry.js'
import { KEY_HEADER } from '../../src/sdk/platform/keys.js'
import type { Manifest } from '../../src/sdk/platform/manifest.js'
import { agentNetworks, canSwap, SWAP_PAIRS, sendableTokens, sendMethodOf } from '../../src/sdk/platform/networks.js'
import { RECEIPT_DOMAIN } from '../../src/sdk/platform/receipt-typed-data.js'
import { agentRoutes } from '../../src/sdk/platform/routes.js'
import { WINDOW_MS, WINDOWS } from '../buyer/budgets.js'

export type ManifestParameters = {
  profile: Profile
  version: string
  facilitatorUrl: string
  /** A token's address on a network, when the deployment knows it. */
  tokenAddress: (network: string, symbol: string) => string | null
  /** The receipt key's address (daemon/buyer/receipts/); null without one. */
  receiptSigner?: string | null
}

/**
 * GET /api/manifest, built from the registry and the route table: the agent networks this profile
 * serves, their tokens and swap pairs, the payment protocols, the limit semantics and the routes an
 * agent key may call. Nothing in it is written by hand, so it cannot drift from what the routes do.
 */
export function buildManifest(p: ManifestParameters): Manifest {
  const served = new Set(profiles[p.profile].networks)
  return {
    name: 'parx',
    version: p.version,
    profile: p.profile,
    networks: agentNetworks()
      .filter((n) => served.has(n.key))
      .map((n) => ({
        key: n.key,
        chainId: n.chainId!,
        caip2: n.caip2,
        sendMethod: sendMethodOf(n),
        tokens: sendableTokens(networks[n.key]!).map((t) => ({
          symbol: t.symbol,
          decimals: t.decimals,
          address: p.tokenAddress(n.key, t.symbol),
        })),
        swapPairs: canSwap(n) ? SWAP_PAIRS.map(([a, b]) => [a, b] as [string, string]) : [],
      })),
    payments: { protocols: ['x402-v2', 'x402-v1', 'mpp'], facilitator: p.facilitatorUrl },
    limits: {
      currency: 'USD',
      kinds: ['perPayment', ...WINDOWS, 'allowedHosts'],
      windowSeconds: WINDOW_MS.day / 1000,
      windows: {
        hour: WINDOW_MS.hour / 1000,
        day: WINDOW_MS.day / 1000,
        week: WINDOW_MS.week / 1000,
        month: WINDOW_MS.month / 1000,
      },
      scopes: ['agent', 'user'],
      countedBy: ['pay', 'send', 'swap'],
    },
    auth: { userKeyHeader: KEY_HEADER.user, agentKeyHeader: KEY_HEADER.agent },
    receipts: { signer: p.receiptSigner ?? null, domain: { ...RECEIPT_DOMAIN }, primaryType: 'Receipt' },
    routes: agentRoutes(),
  }
}
