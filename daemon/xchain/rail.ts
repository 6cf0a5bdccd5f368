import type { XchainRail } from '../../src/sdk/xchain/wire.js'
import type { NewOrder, XOrder } from './order-store.js'

/**
 * One direction of cross-chain settlement. The shared core (daemon/xchain/) persists orders, holds
 * inventory, runs the worker's state machine, asks the attestors and answers status; a rail knows
 * its two chains: how to build the lock, read it, fill, read the fill, claim and refund.
 * daemon/xchain/README.md says what each method must guarantee.
 */
export interface Rail<Req = unknown, Built = unknown> {
  readonly name: XchainRail
  /**
   * Checks the request and prepares the order and the user's lock (signed by the solver where it
   * pays fees). Nothing is persisted here: the core holds `reserve` and inserts `order` before it
   * answers `response`, so nothing is promised unrecorded.
   */
  prepare(req: Req): Promise<{ order: NewOrder; reserve: Inventory & { amount: bigint }; response: Built }>
  /** Where the order's output comes from (the destination network and token symbol). */
  outputInventory(o: XOrder): Inventory
  /** The lock on the origin chain, read live. */
  readSource(o: XOrder): Promise<SourceRead>
  /**
   * The lock's state alone, read live, without the origin's clock or height (the status route, which
   * decides nothing by them, polled by every waiting client).
   */
  readLockState(o: XOrder): Promise<SourceRead['state']>
  /** A lock the core has no record of (the status route's reconciliation). */
  readSourceById(orderId: `0x${string}`): Promise<SourceRead>
  /** The destination fill record of this order's exact output: the guard against delivering twice. */
  readFill(o: XOrder): Promise<FillRead>
  /**
   * Pays the output to the recipient on the destination chain. Called only when `readFill` said
   * not filled and no delivery of this order is in flight; the destination program refuses a second
   * fill anyway. Resolves once the fill is included (or throws).
   */
  deliver(o: XOrder): Promise<{ ref: string }>
  /** The delivery statement the attestors must sign for this fill (what the claim presents). */
  statement(o: XOrder, fill: Filled): `0x${string}`
  /**
   * Claims the locked input with the collected signatures. `persist` is awaited after signing and
   * before the broadcast, so a crash leaves the reference to check instead of a second claim.
   */
  claim(
    o: XOrder,
    attested: { statement: `0x${string}`; signatures: Signed[] },
    persist: (sent: SentTx) => Promise<void>,
  ): Promise<SentTx>
  /** Refunds an expired lock to its user (permissionless on chain; the solver pays the fee). */
  refund(o: XOrder, persist: (sent: SentTx) => Promise<void>): Promise<SentTx>
  /**
   * Sends a signed transaction persisted earlier (`SentTx.raw`) again, as is: a process that died
   * between persisting and broadcasting it leaves it to the next. The same transaction lands once.
   */
  rebroadcast?(raw: string): Promise<void>
  /** What became of a claim or refund transaction sent earlier. */
  fate(ref: string, validUntil: number | null): Promise<TxFate>
  /** Each attestor's own check of a delivery, with chain clients of its own. */
  attestorCheck(index: number): AttestorCheck
  /**
   * A lock the solver relays for the user (evm-origin's gasless `openFor`), for an order the core
   * built; absent on rails where the user submits the lock itself.
   */
  submit?(o: XOrder, body: unknown): Promise<unknown>
}

export type Inventory = { network: string; token: string }

export type SourceRead = {
  /** missing: no lock on chain (yet); open: locked and unsettled; claimed; refunded. */
  state: 'missing' | 'open' | 'claimed' | 'refunded'
  /** The origin chain's clock (unix seconds): claims end and refunds begin by it. */
  now: number
  /** For a missing lock: it can no longer land (its transaction expired). */
  lockDead?: boolean
  /** Why it can no longer land, when the rail words it (the dropped order's reason). */
  lockDeadReason?: string
}

/** `ref`: the fill transaction when the rail can name it (e.g. from the outbox after a crash). */
export type Filled = { filled: true; amount: bigint; claimant: `0x${string}`; filledAt: number; ref?: string }
export type FillRead = Filled | { filled: false; inFlight: boolean }

export type Signed = { attestor: number; signer: string; signature: `0x${string}` }
/** `raw`: the signed transaction (base64) where the rail can send it again as is (`rebroadcast`). */
export type SentTx = { ref: string; validUntil: number | null; raw?: string }
/**
 * landed: included and succeeded; failed: included and failed, or refused; pending: may still land; dead: never will.
 */
export type TxFate = 'landed' | 'failed' | 'pending' | 'dead'

/**
 * An attestor's verification of one order: read the order on its origin chain and the fill on the
 * destination, each with the attestor's own clients, and answer the statement to sign, or why not.
 */
export type AttestorCheck = {
  verify(
    orderId: `0x${string}`,
  ): Promise<{ ok: true; statement: `0x${string}`; scheme: SignatureScheme } | { ok: false; reason: string }>
}

/** ed25519 over the statement bytes (sol-origin); secp256k1 over an EIP-712 digest (evm-origin). */
export type SignatureScheme = 'ed25519' | 'secp256k1-digest'
