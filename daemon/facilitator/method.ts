import type { NetworkSpec } from '../../src/networks/registry.js'
import type { Payment } from '../../src/sdk/x402/wire.js'

/** A payment whose network this daemon serves, with the token it pays in. */
export type Resolved = Payment & {
  spec: NetworkSpec
  token: { symbol: string; address: string; decimals: number }
}

export type Purpose = 'verify' | 'settle' | 'settle-verified'

export type Failure = { reason: string; message: string; payer?: string }

/**
 * The outcome of broadcasting one payment. `pending`: it was broadcast but its fate is unknown, so
 * the authorization stays claimed (a retry must not pay again) until reconciled.
 */
export type Executed =
  | { ok: true; tx: string; answer?: Answer }
  | ({ ok: false; tx?: string; pending?: boolean } & Failure)

/** What a scheme adds to its answers (batch-settlement: the amount moved and the channel's snapshot). */
export type Answer = { amount?: string; extra?: Record<string, unknown> }

/** A payment that passed every check; `execute` settles it on chain exactly as checked. */
export type Checked =
  | { ok: true; payer: string; extra?: Record<string, unknown>; execute(): Promise<Executed> }
  | ({ ok: false } & Failure)

/**
 * One asset transfer method of one network family: erc2612, eip3009 and permit2 on EVM,
 * delegated-spl and the reference transaction form on Solana. Methods are registered in
 * ./methods.ts and nowhere else; the service picks one per payment with `matches`.
 */
export type PaymentMethod = {
  name: string
  /** The x402 scheme it settles; `exact` when absent. */
  scheme?: string
  family: NetworkSpec['family']
  /** Whether this method reads the payment, judged by `extra.assetTransferMethod` and the payload's shape. */
  matches(p: Resolved): boolean
  /** The authorization's replay key from the payload alone, or what keeps the payload from being read. */
  key(p: Resolved): string | Failure
  /**
   * Every check, including the chain's view (balance, nonce, simulation). `settle-verified`: the
   * same payment passed `verify` moments ago, so only what needs no chain is checked again.
   */
  check(p: Resolved, purpose: Purpose): Promise<Checked>
  /** What the ledger records as this settle's amount, answered again on a replay; default the requirements' amount. */
  ledgerAmount?(p: Resolved): string
  /**
   * Whether a settle whose key already settled is answered that first outcome (success, its
   * transaction and amount) instead of `duplicate_settlement`: auth-capture's idempotent lifecycle operations.
   */
  replays?(p: Resolved): boolean
}
