import { BaseError } from '../../src/errors/index.js'
import type { NetworkSpec } from '../../src/networks/registry.js'

/**
 * The Solana network a request names. A daemon serves exactly one, so `net` only confirms it:
 * 'mainnet' is what SPEC clients send and means "this service's network" on every profile (as
 * the hosted service's clients send it to one URL); 'devnet' is accepted likewise on a testnet
 * profile; the network key, its x402 v1 name and its CAIP-2 id are accepted everywhere.
 * Anything else is refused rather than silently served from another cluster.
 */
export function resolveNet(spec: NetworkSpec, net: string | undefined, field = 'net'): string {
  if (net === undefined || net === '') return spec.key
  if (acceptedNames(spec).includes(net)) return spec.key
  throw new BaseError(
    'BAD_REQUEST',
    `invalid ${field} '${net}': this service serves the Solana network ${spec.key}; send one of ${acceptedNames(spec)
      .map((n) => `'${n}'`)
      .join(', ')} or leave it out`,
  )
}

export function acceptedNames(spec: NetworkSpec): string[] {
  const alias = spec.kind === 'testnet' ? ['mainnet', 'devnet'] : ['mainnet']
  return [...new Set([...alias, spec.key, spec.legacyName, spec.caip2])]
}
