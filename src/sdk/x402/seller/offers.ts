import { networks } from '../../../networks/registry.js'
import { EXACT, type PaymentRequirements, type PaymentRequirementsV1, type ResourceInfo, type SupportedKind, type SupportedResponse } from '../types.js'
import { toV1Requirements } from '../wire.js'

/** One way a seller accepts payment for a route. */
export type Price = {
  /** CAIP-2 id (eip155:8453), v1 name (base) or parx network key (local-base). */
  network: string
  /** Token symbol as /supported names it (USDC, PUSD) or its address / mint. */
  asset: string
  /** Base units of the asset. */
  amount: string
  payTo: string
  /** assetTransferMethod; default: the facilitator's for the asset (erc2612 on EVM, delegated-spl on Solana). */
  method?: string
  maxTimeoutSeconds?: number
}

/** A price as both protocol versions state it; v1 is absent when the facilitator lists no v1 kind for it. */
export type Offer = { v2: PaymentRequirements; v1?: PaymentRequirementsV1 }

const caip2 = (n: string) => networks[n]?.caip2 ?? Object.values(networks).find((x) => x.legacyName === n)?.caip2 ?? n

function kindFor(s: SupportedResponse, version: number, network: string, asset: string): SupportedKind | undefined {
  const spec = Object.values(networks).find((n) => n.caip2 === network)
  const names = version === 2 ? [network] : [spec?.legacyName ?? network]
  return s.kinds.find((k) => k.x402Version === version && k.scheme === EXACT && names.includes(k.network) &&
    (k.extra?.symbol === asset || String(k.extra?.asset ?? '').toLowerCase() === asset.toLowerCase()))
}

/**
 * Builds the requirements a 402 offers from the seller's prices and the facilitator's /supported:
 * the asset's address, EIP-712 name and version, and the facilitator's spender (EVM) or fee payer
 * (Solana) come from the facilitator, so a seller states only network, asset, amount and payTo.
 */
export function offersFor(prices: Price[], supported: SupportedResponse, resource: ResourceInfo): Offer[] {
  return prices.map((p) => {
    const network = caip2(p.network)
    const kind = kindFor(supported, 2, network, p.asset)
    if (!kind) throw new Error(`the facilitator does not support ${p.asset} on ${p.network}; see its /supported`)
    const x = kind.extra ?? {}
    const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => x[k] !== undefined).map((k) => [k, x[k]]))
    const v2: PaymentRequirements = {
      scheme: EXACT, network, asset: String(x.asset), amount: p.amount, payTo: p.payTo,
      maxTimeoutSeconds: p.maxTimeoutSeconds ?? 120,
      extra: { assetTransferMethod: p.method ?? x.assetTransferMethod, ...pick(['name', 'version', 'spender', 'feePayer', 'delegate']) },
    }
    const k1 = kindFor(supported, 1, network, p.asset)
    return { v2, v1: k1 ? toV1Requirements(v2, k1.network, resource) : undefined }
  })
}
