import type { AssetAmount, Network, PaymentRequirements, Price, SupportedKind } from '@x402/core/types'
import { BaseError } from '../../../errors/base.js'
import { toBaseUnits } from '../../units.js'

/** A token a seller prices in by default on one network (CAIP-2): its address or mint, decimals and EIP-712 domain. */
export type DefaultAsset = { asset: string; decimals: number; name?: string; version?: string }

/** Keys of `/supported` kind extras that hold facilitator-wide values the client needs to pay. */
const FACILITATOR_EXTRAS = ['spender', 'feePayer', 'delegate'] as const

/** parsePrice of both server schemes: an AssetAmount as given, or money in the network's default asset. */
export async function parsePrice(
  assets: Record<string, DefaultAsset>,
  price: Price,
  network: Network,
): Promise<AssetAmount> {
  if (typeof price === 'object' && price !== null && 'amount' in price) {
    if (!price.asset) throw new BaseError('BAD_REQUEST', `an AssetAmount on ${network} needs its asset`)
    return { amount: price.amount, asset: price.asset, extra: price.extra ?? {} }
  }
  const a = assets[network]
  if (!a)
    throw new BaseError(
      'NETWORK_UNSUPPORTED',
      `no default asset for ${network}: price in { amount, asset } or configure one`,
    )
  const human = String(price).replace(/^\$/, '').trim()
  const extra = a.name && a.version ? { name: a.name, version: a.version } : {}
  return { amount: toBaseUnits(human, a.decimals).toString(), asset: a.asset, extra }
}

/**
 * The wire `extra` of a requirement: the method stated explicitly (clients default to eip3009
 * otherwise), and the facilitator's spender / fee payer from its /supported kind.
 */
export function enhance(r: PaymentRequirements, kind: SupportedKind, defaultMethod: string): PaymentRequirements {
  const extra: Record<string, unknown> = { ...r.extra }
  extra.assetTransferMethod ??= defaultMethod
  for (const k of FACILITATOR_EXTRAS)
    if (kind.extra?.[k] !== undefined && extra[k] === undefined) extra[k] = kind.extra[k]
  return { ...r, extra }
}

export const authorizationFlow = { supported: ['authorization'] as const, default: 'authorization' as const }
