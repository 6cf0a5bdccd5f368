import { type NetworkSpec, networks, profiles } from '../../src/networks/registry.js'
import { AUTH_CAPTURE } from '../../src/sdk/x402/evm/auth-capture/contracts.js'
import { BATCH_SETTLEMENT } from '../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { UPTO } from '../../src/sdk/x402/evm/upto.js'
import { reasons } from '../../src/sdk/x402/reasons.js'
import { EXACT } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { FacilitatorDeps } from './deps.js'
import type { Failure, Resolved } from './method.js'

/** A registry network by its CAIP-2 id (v2) or its legacy name (v1); either form is accepted in either version. */
export function networkByName(name: string): NetworkSpec | undefined {
  return Object.values(networks).find((n) => n.caip2 === name || n.legacyName === name)
}

/** The x402 networks this daemon's profile serves. */
export function servedNetworks(s: FacilitatorDeps): NetworkSpec[] {
  return profiles[s.profile].networks.map((k) => networks[k]!).filter((n) => n.features.includes('x402'))
}

/** The tokens of a served network as the facilitator pays them out: symbol, address or mint, decimals. */
export function tokensOf(s: FacilitatorDeps, spec: NetworkSpec): Resolved['token'][] {
  if (spec.family === 'evm')
    return Object.values(s.evm[spec.key]?.tokens ?? {}).map((t) => ({
      symbol: t.symbol,
      address: t.address,
      decimals: t.decimals,
    }))
  if (spec.key !== s.solana.key) return []
  return Object.values(s.solana.mints).map((m) => ({
    symbol: m.symbol,
    address: m.mint.toBase58(),
    decimals: m.decimals,
  }))
}

/**
 * The protocol-level checks, before any method looks at the payload: version, scheme, a network
 * this daemon serves (the same on both sides of the request), and a token it knows there.
 */
export function resolvePayment(s: FacilitatorDeps, p: Payment): Resolved | Failure {
  if (p.version !== 1 && p.version !== 2)
    return { reason: reasons.invalidX402Version, message: `x402Version ${p.version} is not supported; use 1 or 2` }
  if (p.scheme !== EXACT && p.scheme !== UPTO && p.scheme !== BATCH_SETTLEMENT && p.scheme !== AUTH_CAPTURE) {
    return {
      reason: reasons.unsupportedScheme,
      message:
        `scheme '${p.scheme}' is not supported; this facilitator settles ` +
        `'${EXACT}', '${UPTO}', '${BATCH_SETTLEMENT}' and '${AUTH_CAPTURE}' (EVM)`,
    }
  }
  if (p.requirements.scheme !== p.scheme)
    return {
      reason: reasons.invalidScheme,
      message: `the payload's scheme '${p.scheme}' differs from the requirements' '${p.requirements.scheme}'`,
    }
  const spec = networkByName(p.network)
  const required = networkByName(p.requirements.network)
  if (!spec || !required)
    return { reason: reasons.invalidNetwork, message: `unknown network '${spec ? p.requirements.network : p.network}'` }
  if (spec !== required)
    return {
      reason: reasons.invalidNetwork,
      message: `the payload's network ${p.network} differs from the requirements' ${p.requirements.network}`,
    }
  if (!servedNetworks(s).includes(spec)) {
    return {
      reason: reasons.invalidNetwork,
      message: `network ${spec.caip2} is not served here; this facilitator serves ${servedNetworks(s)
        .map((n) => n.caip2)
        .join(', ')}`,
    }
  }
  const asset = p.requirements.asset
  const token = tokensOf(s, spec).find((t) =>
    spec.family === 'evm' ? t.address.toLowerCase() === asset.toLowerCase() : t.address === asset,
  )
  if (!token)
    return {
      reason: reasons.invalidPaymentRequirements,
      message: `asset ${asset} is not supported on ${spec.caip2}; see GET /supported`,
    }
  return { ...p, spec, token }
}
