import type { Db } from '../store/db.js'

export type SettlementRow = {
  id: number
  auth_key: string
  network: string
  method: string
  payer: string | null
  state: 'pending' | 'settled' | 'failed'
  tx: string | null
  reason: string | null
  message: string | null
}

export type Claim = { network: string; method: string; payer?: string; payTo: string; asset: string; amount: string }

export type SettlementStore = {
  /** Takes the authorization for this settle, or returns the live row that already has it. */
  claim(key: string, c: Claim): { id: number } | { existing: SettlementRow }
  /** The live (pending or settled) row of an authorization, if any. */
  live(key: string): SettlementRow | undefined
  settled(id: number, tx: string, payer: string): void
  /** A failure releases the authorization: a later settle may try again. */
  failed(id: number, f: { reason: string; message: string; tx?: string; payer?: string }): void
  /** Broadcast, fate unknown: the row stays pending (the authorization stays claimed) but names its transaction. */
  broadcast(id: number, tx: string): void
  /** Rows left pending by a stop mid-settlement, for reconciliation at start. */
  pending(): SettlementRow[]
  /** The id the next row will get: rows below it existed before this moment. */
  nextId(): number
}

/**
 * The settle-at-most-once ledger. SQLite's partial unique index makes the claim atomic: of any
 * number of concurrent settles of one authorization exactly one insert succeeds. better-sqlite3
 * is synchronous, so each call here is committed (WAL) before the caller continues.
 */
export function settlementStore(db: Db): SettlementStore {
  const insert = db.prepare(`INSERT INTO x402_settlements (auth_key, network, method, payer, pay_to, asset, amount, state, created_at, updated_at)
    VALUES (@key, @network, @method, @payer, @payTo, @asset, @amount, 'pending', @now, @now) ON CONFLICT DO NOTHING`)
  const liveRow = db.prepare(`SELECT * FROM x402_settlements WHERE auth_key = ? AND state IN ('pending', 'settled')`)
  const finish = db.prepare(`UPDATE x402_settlements SET state = @state, tx = @tx, reason = @reason, message = @message, payer = COALESCE(@payer, payer), updated_at = @now WHERE id = @id`)
  const noteTx = db.prepare(`UPDATE x402_settlements SET tx = ?, updated_at = ? WHERE id = ?`)
  const pendingRows = db.prepare(`SELECT * FROM x402_settlements WHERE state = 'pending' ORDER BY id`)
  const now = () => Date.now()

  return {
    claim(key, c) {
      const r = insert.run({ key, network: c.network, method: c.method, payer: c.payer ?? null, payTo: c.payTo, asset: c.asset, amount: c.amount, now: now() })
      if (r.changes === 1) return { id: Number(r.lastInsertRowid) }
      const existing = liveRow.get(key) as SettlementRow | undefined
      // The live row can vanish between the two statements only if its settle just failed: try again.
      return existing ? { existing } : this.claim(key, c)
    },
    live: (key) => liveRow.get(key) as SettlementRow | undefined,
    settled: (id, tx, payer) => void finish.run({ id, state: 'settled', tx, payer, reason: null, message: null, now: now() }),
    failed: (id, f) => void finish.run({ id, state: 'failed', tx: f.tx ?? null, payer: f.payer ?? null, reason: f.reason, message: f.message, now: now() }),
    broadcast: (id, tx) => void noteTx.run(tx, now(), id),
    pending: () => pendingRows.all() as SettlementRow[],
    nextId: () => (db.prepare('SELECT COALESCE(MAX(id), 0) + 1 FROM x402_settlements').pluck().get() as number),
  }
}
