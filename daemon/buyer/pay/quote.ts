import type { Address, Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { PaymentInfo } from '../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import type { EvmChain, EvmToken } from '../../chains/evm/chain.js'
import type { PaymentProof } from './proof.js'

/** What an agent's auth-capture payment holds: the escrow's id of it and the terms signed. */
export type HoldTerms = {
  /** paymentInfoHash: the escrow's key of the payment (its `paymentState`). */
  id: Hex
  escrow: Address
  version: 'v1.0' | 'v1.1'
  info: PaymentInfo
}

/** What the seller's PAYMENT-RESPONSE says the hold became. */
export type HoldOutcome = { operation: 'authorize' | 'capture' | 'void'; captured: bigint; voided: bigint }

/**
 * What reading a seller's terms needs: the agent's chain, the tokens it pays with, its signer, and
 * the longest a signed payment may stay valid (seconds): the seller's wish is clamped to it.
 */
export type QuoteContext = {
  chain: EvmChain
  tokens: EvmToken[]
  signer: PrivateKeyAccount
  url: string
  maxValiditySeconds: number
  scheme?: PayScheme
}

/**
 * Which x402 scheme an agent pays with when a seller offers more than one: `auth-capture` (a
 * refundable hold, captured for what was served) before `exact` by default (config
 * `pay.preferAuthCapture`), or only the one a pay request names (`scheme`).
 */
export type PayScheme = { only?: 'exact' | 'auth-capture'; preferAuthCapture: boolean }

/** Bounds and default of the validity cap (config `pay.validitySeconds`, docs/hosting.md "Hosting safely"). */
export const VALIDITY_SECONDS = { min: 10, max: 3600, default: 300 } as const

/**
 * How long a signed payment stays valid: what the seller asks (x402 `maxTimeoutSeconds`, MPP
 * `expires` minus now), never more than `cap`. The seller, not the agent, would otherwise decide
 * how long it may hold a signature it refused, and an authorization valid for a year can be
 * submitted long after the reservation that counted it was released. Asking more is not refused:
 * both schemes let the payer pick an earlier deadline (facilitators only check it is not too far
 * out and not about to pass). Missing or unreadable: the cap.
 */
export function validitySeconds(asked: unknown, cap: number): number {
  const n = typeof asked === 'number' ? asked : typeof asked === 'string' && /^\d+$/.test(asked) ? Number(asked) : NaN
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), cap) : cap
}

/**
 * One way to pay a seller, read from its 402: the price in one of the agent's tokens, how to sign
 * (`sign` gives the request headers to retry with and the proof to check the chain with) and how to
 * read the settlement transaction from the paid answer.
 */
export type Quote = {
  protocol: 'x402-v2' | 'x402-v1' | 'mpp'
  token: EvmToken
  /** Base units of `token`. */
  raw: bigint
  payTo: string
  /** x402's scheme (`exact`, …) or MPP's intent (`charge`): what a dry run names as the offer. */
  scheme?: string
  /** x402 `auth-capture`: the hold signed (its escrow id and PaymentInfo), fixed when the offer was read. */
  hold?: HoldTerms
  /** `idempotent`: the signed request carries a payment-identifier, so sending it twice pays once. */
  sign(): Promise<{ headers: Record<string, string>; proof: PaymentProof; idempotent?: boolean }>
  settlement(res: Response): { transaction: Hex | null; reason?: string; outcome?: HoldOutcome }
}

/** What a seller offered, for the error that says none of it is payable. */
export type Offered = { quotes: Quote[]; offered: string[] }

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
export const isTxHash = (v: unknown): v is Hex => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v)
