import type { Hex } from 'viem'
import type { ChannelConfig } from '../../evm/batch-settlement/contracts.js'

/**
 * What a seller knows of one batch-settlement channel: what it charged so far (the buyer's next
 * voucher must sign that plus the price), the newest voucher it holds (what it can claim), and a
 * mirror of the channel's on-chain state with the time it was read (`syncedAt`), which makes
 * local voucher checks safe while it is fresh. Amounts are decimal strings (uint128 does not fit
 * a SQL bigint); `pending` is the one request the channel is serving.
 */
export type ChannelRecord = {
  channelId: Hex
  /** CAIP-2. */
  network: string
  config: ChannelConfig
  chargedCumulativeAmount: string
  signedMaxClaimable: string
  signature: Hex
  balance: string
  totalClaimed: string
  withdrawRequestedAt: number
  refundNonce: string
  /**
   * When balance / totalClaimed / withdrawRequestedAt / refundNonce were last read from the chain (ms); null: never.
   */
  syncedAt: number | null
  lastRequestAt: number
  pendingId: string | null
  pendingExpiresAt: number | null
  /** Who the channel's earnings belong to beyond payTo (the platform: the endpoint id); null for a plain seller. */
  tag: string | null
}

/** `created`: the channel was new, so releasing the reservation forgets it again. */
export type ReserveResult =
  | { status: 'reserved'; created: boolean }
  | { status: 'busy' }
  | { status: 'stale'; current: ChannelRecord }

/** The on-chain mirror a verify, deposit or refund answered. */
export type ChannelMirror = Pick<
  ChannelRecord,
  'balance' | 'totalClaimed' | 'withdrawRequestedAt' | 'refundNonce' | 'syncedAt'
>

/**
 * Channel state behind the payment gate, shared by every replica that serves the same sellers.
 * Each operation is atomic on its own (a row lock or a compare-and-set in SQL), which is what
 * serialises a channel: a request first `reserve`s it (only when nobody else holds it and the
 * charged total is the one its voucher was signed against), then `commit`s or `release`s that
 * reservation. Two replicas given the same voucher increment: one reserves, the other is busy.
 */
export interface ChannelStore {
  get(channelId: Hex): Promise<ChannelRecord | undefined>
  /**
   * Takes the channel for one request: inserts `record` when the channel is new; otherwise only
   * when its charged total is `expectedCharged` and no live reservation holds it, and then
   * refreshes the mirror when `mirror` is given.
   */
  reserve(p: {
    record: ChannelRecord
    expectedCharged: string
    mirror?: ChannelMirror
    now: number
  }): Promise<ReserveResult>
  /** Applies `patch` and clears the reservation, only while `pendingId` still holds it; false when it did not. */
  commit(channelId: Hex, pendingId: string, patch: Partial<ChannelRecord>): Promise<boolean>
  /**
   * Drops `pendingId`'s reservation (a failed handler, a refused settle); a record that was never committed goes with
   * it.
   */
  release(channelId: Hex, pendingId: string, opts?: { drop?: boolean }): Promise<void>
  /** Channels with a voucher charged beyond what was claimed on chain. */
  claimable(): Promise<ChannelRecord[]>
  /** Records an on-chain claim of `totalClaimed` (never lowers it). */
  markClaimed(channelId: Hex, totalClaimed: string): Promise<void>
  /** Forgets a channel (refunded to nothing). */
  remove(channelId: Hex): Promise<void>
}

const live = (r: ChannelRecord, now: number) => r.pendingId !== null && (r.pendingExpiresAt ?? 0) > now

/**
 * The channel store of one process (the default): enough for a single seller process; replicas
 * need a shared one (the daemon's, in SQLite or PostgreSQL: daemon/seller/batch-settlement/channel-store.ts).
 */
export function memoryChannelStore(): ChannelStore {
  const rows = new Map<string, ChannelRecord>()
  const key = (id: string) => id.toLowerCase()
  return {
    get: async (id) => (rows.has(key(id)) ? { ...rows.get(key(id))! } : undefined),
    async reserve({ record, expectedCharged, mirror, now }) {
      const cur = rows.get(key(record.channelId))
      if (!cur) {
        rows.set(key(record.channelId), { ...record })
        return { status: 'reserved', created: true }
      }
      if (cur.chargedCumulativeAmount !== expectedCharged) return { status: 'stale', current: { ...cur } }
      if (live(cur, now)) return { status: 'busy' }
      rows.set(key(record.channelId), {
        ...cur,
        ...(mirror ?? {}),
        pendingId: record.pendingId,
        pendingExpiresAt: record.pendingExpiresAt,
        lastRequestAt: now,
      })
      return { status: 'reserved', created: false }
    },
    async commit(id, pendingId, patch) {
      const cur = rows.get(key(id))
      if (!cur || cur.pendingId !== pendingId) return false
      rows.set(key(id), { ...cur, ...patch, pendingId: null, pendingExpiresAt: null })
      return true
    },
    async release(id, pendingId, opts) {
      const cur = rows.get(key(id))
      if (!cur || cur.pendingId !== pendingId) return
      if (opts?.drop) rows.delete(key(id))
      else rows.set(key(id), { ...cur, pendingId: null, pendingExpiresAt: null })
    },
    claimable: async () =>
      [...rows.values()]
        .filter((r) => BigInt(r.chargedCumulativeAmount) > BigInt(r.totalClaimed))
        .map((r) => ({ ...r })),
    async markClaimed(id, totalClaimed) {
      const cur = rows.get(key(id))
      if (cur && BigInt(totalClaimed) > BigInt(cur.totalClaimed)) rows.set(key(id), { ...cur, totalClaimed })
    },
    remove: async (id) => void rows.delete(key(id)),
  }
}
