import type { Selectable } from 'kysely'
import type { Hex } from 'viem'
import type { ChannelConfig } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { ChannelMirror, ChannelRecord, ChannelStore } from '../../../src/sdk/x402/seller/batch-settlement/store.js'
import type { Store } from '../../store/store.js'
import type { X402SellerChannelsTable } from '../../store/tables/seller.js'

type Row = Selectable<X402SellerChannelsTable>

const toRecord = (r: Row): ChannelRecord => ({
  channelId: r.channel_id as Hex,
  network: r.network,
  config: JSON.parse(r.config) as ChannelConfig,
  chargedCumulativeAmount: r.charged,
  signedMaxClaimable: r.signed_max,
  signature: r.signature as Hex,
  balance: r.balance,
  totalClaimed: r.total_claimed,
  withdrawRequestedAt: Number(r.withdraw_requested_at),
  refundNonce: r.refund_nonce,
  syncedAt: r.synced_at === null ? null : Number(r.synced_at),
  lastRequestAt: Number(r.last_request_at),
  pendingId: r.pending_id,
  pendingExpiresAt: r.pending_expires_at === null ? null : Number(r.pending_expires_at),
  tag: r.tag,
})

/** The columns a record or a partial change of it sets. */
function toColumns(c: Partial<ChannelRecord>): Partial<Row> {
  const out: Partial<Row> = {}
  if (c.channelId !== undefined) out.channel_id = c.channelId.toLowerCase()
  if (c.network !== undefined) out.network = c.network
  if (c.config !== undefined)
    Object.assign(out, {
      config: JSON.stringify(c.config),
      token: c.config.token.toLowerCase(),
      receiver: c.config.receiver.toLowerCase(),
    })
  if (c.chargedCumulativeAmount !== undefined) out.charged = c.chargedCumulativeAmount
  if (c.signedMaxClaimable !== undefined) out.signed_max = c.signedMaxClaimable
  if (c.signature !== undefined) out.signature = c.signature
  if (c.balance !== undefined) out.balance = c.balance
  if (c.totalClaimed !== undefined) out.total_claimed = c.totalClaimed
  if (c.withdrawRequestedAt !== undefined) out.withdraw_requested_at = c.withdrawRequestedAt
  if (c.refundNonce !== undefined) out.refund_nonce = c.refundNonce
  if (c.syncedAt !== undefined) out.synced_at = c.syncedAt
  if (c.lastRequestAt !== undefined) out.last_request_at = c.lastRequestAt
  if (c.pendingId !== undefined) out.pending_id = c.pendingId
  if (c.pendingExpiresAt !== undefined) out.pending_expires_at = c.pendingExpiresAt
  if (c.tag !== undefined) out.tag = c.tag
  return out
}

/**
 * The seller middleware's ChannelStore in the daemon's store (SQLite or PostgreSQL). Every change
 * is one statement guarded by what it expects (the charged total, the holder's pending id), so it
 * is atomic on both dialects and across replicas: no read-modify-write spans two statements
 * except markClaimed, whose guard is the old total.
 */
export function sellerChannelStore(store: Store): ChannelStore {
  const { db } = store
  const t = 'x402_seller_channels' as const
  const byId = (id: string) => db.selectFrom(t).selectAll().where('channel_id', '=', id.toLowerCase())
  return {
    async get(id) {
      const r = await byId(id).executeTakeFirst()
      return r && toRecord(r)
    },
    async reserve({ record, expectedCharged, mirror, now }) {
      const inserted = await db
        .insertInto(t)
        .values(toColumns(record) as Row)
        .onConflict((oc) => oc.column('channel_id').doNothing())
        .executeTakeFirst()
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return { status: 'reserved', created: true }
      const set: Partial<Row> = {
        ...toColumns((mirror ?? {}) as Partial<ChannelMirror>),
        pending_id: record.pendingId,
        pending_expires_at: record.pendingExpiresAt,
        last_request_at: now,
      }
      const u = await db
        .updateTable(t)
        .set(set)
        .where('channel_id', '=', record.channelId.toLowerCase())
        .where('charged', '=', expectedCharged)
        .where((eb) => eb.or([eb('pending_id', 'is', null), eb('pending_expires_at', '<=', now)]))
        .executeTakeFirst()
      if (Number(u.numUpdatedRows) > 0) return { status: 'reserved', created: false }
      const cur = await byId(record.channelId).executeTakeFirst()
      if (!cur) return { status: 'busy' }
      return cur.charged !== expectedCharged ? { status: 'stale', current: toRecord(cur) } : { status: 'busy' }
    },
    async commit(id, pendingId, patch) {
      const u = await db
        .updateTable(t)
        .set({ ...toColumns(patch), pending_id: null, pending_expires_at: null })
        .where('channel_id', '=', id.toLowerCase())
        .where('pending_id', '=', pendingId)
        .executeTakeFirst()
      return Number(u.numUpdatedRows) > 0
    },
    async release(id, pendingId, opts) {
      const q = db.updateTable(t).set({ pending_id: null, pending_expires_at: null })
      await (opts?.drop
        ? db.deleteFrom(t).where('channel_id', '=', id.toLowerCase()).where('pending_id', '=', pendingId).execute()
        : q.where('channel_id', '=', id.toLowerCase()).where('pending_id', '=', pendingId).execute())
    },
    async claimable() {
      const rows = await db.selectFrom(t).selectAll().whereRef('charged', '!=', 'total_claimed').execute()
      return rows.map(toRecord).filter((r) => BigInt(r.chargedCumulativeAmount) > BigInt(r.totalClaimed))
    },
    async markClaimed(id, totalClaimed) {
      const cur = await byId(id).executeTakeFirst()
      if (!cur || BigInt(totalClaimed) <= BigInt(cur.total_claimed)) return
      await db
        .updateTable(t)
        .set({ total_claimed: totalClaimed })
        .where('channel_id', '=', id.toLowerCase())
        .where('total_claimed', '=', cur.total_claimed)
        .execute()
    },
    remove: async (id) => void (await db.deleteFrom(t).where('channel_id', '=', id.toLowerCase()).execute()),
  }
}
