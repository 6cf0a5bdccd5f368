import type { Selectable } from 'kysely'
import type { Store } from '../../store/store.js'
import type { TxOutboxTable } from '../../store/tables/foundation.js'

export type OutboxRow = Selectable<TxOutboxTable>
export type OutboxEntry = {
  hash: string
  network: string
  chainId: number
  sender: string
  nonce: number
  raw: string
  purpose: string
  refs?: string
}

/**
 * Port: the transaction outbox (`tx_outbox`). A sender records every signed transaction here
 * before the node sees it; reconciliation reads what has no receipt yet and decides it.
 */
export type Outbox = {
  /** Written (committed) before the broadcast. Recording the same hash again is a no-op. */
  record(e: OutboxEntry): Promise<void>
  /**
   * Transactions with no receipt seen yet, per (network, sender) in nonce order; with
   * `createdBefore`, only those older (filtered in the store: the young rows a live sender holds,
   * raw bytes included, are never read on the request path's event loop).
   */
  unconfirmed(createdBefore?: number): Promise<OutboxRow[]>
  /**
   * One sender's undecided transactions on `network` from `nonce` up, in nonce order (several at one
   * nonce, oldest first: a refused one and what reused or filled its nonce). Whoever signed them.
   */
  sentFrom(network: string, sender: string, nonce: number): Promise<Pick<OutboxRow, 'nonce' | 'raw' | 'created_at'>[]>
  mark(hash: string, state: 'included' | 'failed', reason?: string): Promise<void>
  get(hash: string): Promise<OutboxRow | undefined>
  /** The hashes among these that the chain will never include (decided failed). */
  failedAmong(hashes: string[]): Promise<Set<string>>
  /** Every transaction recorded for `refs` with this purpose on `network`, newest first (e.g. an order's fills). */
  byRefs(network: string, purpose: string, refs: string): Promise<Pick<OutboxRow, 'hash' | 'state'>[]>
}

export function outboxStore(store: Store): Outbox {
  const { db } = store
  return {
    async record(e) {
      const t = Date.now()
      await db
        .insertInto('tx_outbox')
        .values({
          hash: e.hash.toLowerCase(),
          network: e.network,
          chain_id: e.chainId,
          sender: e.sender.toLowerCase(),
          nonce: e.nonce,
          raw: e.raw,
          purpose: e.purpose,
          refs: e.refs ?? null,
          state: 'sent',
          reason: null,
          created_at: t,
          updated_at: t,
        })
        .onConflict((oc) => oc.column('hash').doNothing())
        .execute()
    },
    unconfirmed: (createdBefore) => {
      let q = db.selectFrom('tx_outbox').selectAll().where('state', '=', 'sent')
      if (createdBefore !== undefined) q = q.where('created_at', '<', createdBefore)
      return q.orderBy('network').orderBy('sender').orderBy('nonce').execute()
    },
    sentFrom: (network, sender, nonce) =>
      db
        .selectFrom('tx_outbox')
        .select(['nonce', 'raw', 'created_at'])
        .where('network', '=', network)
        .where('sender', '=', sender.toLowerCase())
        .where('nonce', '>=', nonce)
        .where('state', '=', 'sent')
        .orderBy('nonce')
        .orderBy('created_at')
        .execute(),
    async mark(hash, state, reason) {
      await db
        .updateTable('tx_outbox')
        .set({ state, reason: reason ?? null, updated_at: Date.now() })
        .where('hash', '=', hash.toLowerCase())
        .execute()
    },
    get: (hash) => db.selectFrom('tx_outbox').selectAll().where('hash', '=', hash.toLowerCase()).executeTakeFirst(),
    async failedAmong(hashes) {
      if (hashes.length === 0) return new Set()
      const rows = await db
        .selectFrom('tx_outbox')
        .select('hash')
        .where('state', '=', 'failed')
        .where(
          'hash',
          'in',
          hashes.map((h) => h.toLowerCase()),
        )
        .execute()
      return new Set(rows.map((r) => r.hash))
    },
    byRefs: (network, purpose, refs) =>
      db
        .selectFrom('tx_outbox')
        .select(['hash', 'state'])
        .where('network', '=', network)
        .where('purpose', '=', purpose)
        .where('refs', '=', refs)
        .orderBy('created_at', 'desc')
        .execute(),
  }
}
