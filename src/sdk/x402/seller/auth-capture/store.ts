import type { Hex } from 'viem'
import type { PaymentRequirements } from '../../types.js'

/**
 * Where an auth-capture payment stands for its seller:
 * `authorizing` (written before the hold is asked for, so a crash never forgets one),
 * `held` (the escrow holds what was not captured or voided), `captured` (nothing left held; some
 * captured), `voided` (nothing captured, the hold returned), `failed` (the authorize was refused:
 * nothing held).
 */
export type HoldStatus = 'authorizing' | 'held' | 'captured' | 'voided' | 'failed'

/**
 * What a seller keeps of one auth-capture payment: everything a later capture, void or refund
 * needs (the binding's "async servers MUST persist saltNonce with paymentInfo"), and the
 * amounts it moved, which are the escrow's own balances as long as only this seller moves them
 * (capturable = maxAmount - captured - voided; refundable = captured - refunded). Amounts are
 * decimal strings; `version` serialises updates (compare-and-set).
 */
export type HoldRecord = {
  /** The escrow's paymentInfoHash: the payment's id. */
  id: Hex
  /** CAIP-2. */
  network: string
  /** The requirements the payment was held under (lifecycle settles send them again). */
  requirements: PaymentRequirements
  /** The escrow's PaymentInfo as the wire spells it (paymentInfoWire). */
  paymentInfo: Record<string, unknown>
  saltNonce: Hex
  payer: string
  payTo: string
  maxAmount: string
  status: HoldStatus
  captured: string
  voided: string
  refunded: string
  captureDeadline: number
  refundDeadline: number
  authorizeTransaction: string
  /** The last capture's transaction (the one PAYMENT-RESPONSE reported). */
  captureTransaction: string
  /** Who the payment belongs to beyond payTo (the platform: the endpoint id); null for a plain seller. */
  tag: string | null
  createdAt: number
  updatedAt: number
  version: number
}

/** What the escrow holds for a record and what it would refund (its paymentState, as we moved it). */
export const balancesOf = (r: HoldRecord) => ({
  capturable: r.status === 'held' ? BigInt(r.maxAmount) - BigInt(r.captured) - BigInt(r.voided) : 0n,
  refundable: BigInt(r.captured) - BigInt(r.refunded),
})

/**
 * The holds behind the payment gate, shared by every replica that serves the same sellers (the
 * platform keeps them in SQLite / PostgreSQL). `update` applies a patch only while the record is
 * still at `version`, so two replicas never both capture or refund from one snapshot.
 */
export interface HoldStore {
  /** Inserts a new record; false when the id is known already (a payment sent twice). */
  insert(record: HoldRecord): Promise<boolean>
  get(id: Hex): Promise<HoldRecord | undefined>
  /** Applies `patch` (and version + 1) only while the record is at `version`; false otherwise. */
  update(id: Hex, version: number, patch: Partial<Omit<HoldRecord, 'id' | 'version'>>): Promise<boolean>
  /** Records in these states, oldest first (what a sweep voids or finishes). */
  list(statuses: HoldStatus[]): Promise<HoldRecord[]>
}

/** The hold store of one process (the default): a single seller process; replicas need a shared one. */
export function memoryHoldStore(): HoldStore {
  const rows = new Map<string, HoldRecord>()
  const key = (id: string) => id.toLowerCase()
  const copy = (r: HoldRecord): HoldRecord => ({
    ...r,
    requirements: { ...r.requirements, extra: { ...r.requirements.extra } },
    paymentInfo: { ...r.paymentInfo },
  })
  return {
    async insert(r) {
      if (rows.has(key(r.id))) return false
      rows.set(key(r.id), copy(r))
      return true
    },
    get: async (id) => (rows.has(key(id)) ? copy(rows.get(key(id))!) : undefined),
    async update(id, version, patch) {
      const cur = rows.get(key(id))
      if (!cur || cur.version !== version) return false
      rows.set(key(id), { ...cur, ...patch, version: version + 1 })
      return true
    },
    list: async (statuses) =>
      [...rows.values()]
        .filter((r) => statuses.includes(r.status))
        .sort((a, b) => a.createdAt - b.createdAt)
        .map(copy),
  }
}
