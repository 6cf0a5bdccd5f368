import { isAddress, isAddressEqual, zeroAddress } from 'viem'
import { BaseError } from '../../../errors/index.js'
import { networks } from '../../../networks/registry.js'
import { AUTH_CAPTURE } from '../evm/auth-capture/contracts.js'
import { BATCH_SETTLEMENT, MIN_WITHDRAW_DELAY } from '../evm/batch-settlement/contracts.js'
import {
  EXACT,
  type PaymentRequirements,
  type PaymentRequirementsV1,
  type ResourceInfo,
  type SupportedKind,
  type SupportedResponse,
} from '../types.js'
import { toV1Requirements } from '../wire.js'
import { type AuthCapturePrice, authCaptureRequirements } from './auth-capture/terms.js'

/** One way a seller accepts payment for a route. */
export type Price = AuthCapturePrice & {
  /** CAIP-2 id (eip155:8453), v1 name (base) or parx network key (local-base). */
  network: string
  /** Token symbol as /supported names it (USDC, PUSD) or its address / mint. */
  asset: string
  /** Base units of the asset; with `scheme: 'upto'`, the most one request may cost. */
  amount: string
  /**
   * `exact` (default): the price is charged. `upto` (metered; EVM through permit2, Solana through
   * delegated-spl): the payer signs for at most `amount` and the handler reports what it used (see
   * `settleAmount` in ./usage.ts); that is charged. `batch-settlement` (EVM, tokens with EIP-3009):
   * the buyer deposits once into a channel and then signs vouchers; `amount` is the most one
   * request may cost (the handler may report less with `settleAmount`), and the seller's channel
   * store and claim-and-settle duty do the rest (./channels/). `auth-capture` (EVM, tokens with
   * EIP-3009; refundable): the buyer's `amount` is held in escrow before the handler runs, captured
   * after it succeeded (all, or what it reported with `settleAmount`, the rest voided), voided when
   * it failed, and refundable later until the refund deadline (./auth-capture/).
   */
  scheme?: 'exact' | 'upto' | 'batch-settlement' | 'auth-capture'
  payTo: string
  /**
   * batch-settlement: the channel's withdraw delay in seconds (default 900, the contract's minimum);
   * the buyer's channel names it and can take back its unclaimed deposit only that long after asking.
   */
  withdrawDelay?: number
  /** assetTransferMethod; default: the facilitator's for the asset (erc2612 on EVM, delegated-spl on Solana). */
  method?: string
  maxTimeoutSeconds?: number
}

/** A price as both protocol versions state it; v1 is absent when the facilitator lists no v1 kind for it. */
export type Offer = { v2: PaymentRequirements; v1?: PaymentRequirementsV1; decimals?: number }

const caip2 = (n: string) => networks[n]?.caip2 ?? Object.values(networks).find((x) => x.legacyName === n)?.caip2 ?? n

function kindFor(
  s: SupportedResponse,
  version: number,
  network: string,
  asset: string,
  scheme: string = EXACT,
): SupportedKind | undefined {
  const spec = Object.values(networks).find((n) => n.caip2 === network)
  const names = version === 2 ? [network] : [spec?.legacyName ?? network]
  return s.kinds.find(
    (k) =>
      k.x402Version === version &&
      k.scheme === scheme &&
      names.includes(k.network) &&
      (k.extra?.symbol === asset || String(k.extra?.asset ?? '').toLowerCase() === asset.toLowerCase()),
  )
}

/**
 * Builds the requirements a 402 offers from the seller's prices and the facilitator's /supported:
 * the asset's address, EIP-712 name and version, and the facilitator's spender (EVM) or fee payer
 * (Solana) come from the facilitator, so a seller states only network, asset, amount and payTo.
 */
export function offersFor(prices: Price[], supported: SupportedResponse, resource: ResourceInfo): Offer[] {
  return prices.map((p) => {
    const network = caip2(p.network)
    const scheme = p.scheme ?? EXACT
    const kind = kindFor(supported, 2, network, p.asset, scheme)
    if (!kind)
      throw new BaseError(
        'FACILITATOR_UNSUPPORTED',
        `the facilitator does not support ${scheme} payments in ${p.asset} on ${p.network}; see its /supported`,
      )
    const x = kind.extra ?? {}
    const pick = (keys: string[]) => Object.fromEntries(keys.filter((k) => x[k] !== undefined).map((k) => [k, x[k]]))
    if (scheme === BATCH_SETTLEMENT) return batchOffer(p, network, x)
    if (scheme === AUTH_CAPTURE)
      return {
        v2: authCaptureRequirements(p, network, x, Math.floor(Date.now() / 1000)),
        decimals: typeof x.decimals === 'number' ? x.decimals : undefined,
      }
    const v2: PaymentRequirements = {
      scheme,
      network,
      asset: String(x.asset),
      amount: p.amount,
      payTo: p.payTo,
      maxTimeoutSeconds: p.maxTimeoutSeconds ?? 120,
      // upto: the payer's witness must name the facilitator that will settle (extra.facilitatorAddress).
      extra: {
        assetTransferMethod: p.method ?? x.assetTransferMethod,
        ...pick(['name', 'version', 'spender', 'feePayer', 'delegate', 'facilitatorAddress']),
      },
    }
    const decimals = typeof x.decimals === 'number' ? x.decimals : undefined
    // x402 v1 has no metered scheme.
    const k1 = scheme === EXACT ? kindFor(supported, 1, network, p.asset) : undefined
    return { v2, v1: k1 ? toV1Requirements(v2, k1.network, resource) : undefined, decimals }
  })
}

/**
 * A batch-settlement offer: the channel's receiver authorizer is the facilitator's (it signs the
 * seller's claims and refunds), and the token's EIP-712 name and version sign the deposit. Never
 * one without it: a buyer would name its own authorizer and refund to itself what it spent.
 */
function batchOffer(p: Price, network: string, x: Record<string, unknown>): Offer {
  const ra = x.receiverAuthorizer
  if (typeof ra !== 'string' || !isAddress(ra, { strict: false }) || isAddressEqual(ra, zeroAddress)) {
    throw new BaseError(
      'BATCH_AUTHORIZER_NOT_CONFIGURED',
      `the facilitator names no receiver authorizer for batch-settlement on ${p.network}, so ` +
        `no channel can be offered (set PARX_BATCH_RECEIVER_AUTHORIZER_KEY on a parx facilitator)`,
    )
  }
  const extra: Record<string, unknown> = {
    name: x.name,
    version: x.version,
    receiverAuthorizer: x.receiverAuthorizer,
    withdrawDelay: p.withdrawDelay ?? MIN_WITHDRAW_DELAY,
  }
  return {
    v2: {
      scheme: BATCH_SETTLEMENT,
      network,
      asset: String(x.asset),
      amount: p.amount,
      payTo: p.payTo,
      maxTimeoutSeconds: p.maxTimeoutSeconds ?? 120,
      extra,
    },
    decimals: typeof x.decimals === 'number' ? x.decimals : undefined,
  }
}
