import type { UiTokenAmount } from './amounts.js'
import type { ChainDb } from './chain-db.js'
import type { TransactionErrorJson } from './tx-error.js'

export type TokenBalance = {
  accountIndex: number
  mint: string
  owner: string
  programId: string
  uiTokenAmount: UiTokenAmount
}
export type InnerInstructionsJson = {
  index: number
  instructions: { programIdIndex: number; accounts: number[]; data: string; stackHeight: number | null }[]
}

/** What the RPC's transaction `meta` needs; u64 values as decimal strings (JSON has no u64). */
export type TxMeta = {
  version: 'legacy' | 0
  fee: string
  logs: string[]
  preBalances: string[]
  postBalances: string[]
  preTokenBalances: TokenBalance[]
  postTokenBalances: TokenBalance[]
  innerInstructions: InnerInstructionsJson[]
  loadedAddresses: { writable: string[]; readonly: string[] }
  computeUnitsConsumed: number
  returnData: { programId: string; data: [string, 'base64'] } | null
}

export type TxRecord = {
  signature: string
  slot: number
  blockTime: number
  err: TransactionErrorJson | null
  raw: Uint8Array
  meta: TxMeta
}

export type TxSummary = { signature: string; slot: number; blockTime: number; err: TransactionErrorJson | null }

type Row = {
  id: number
  signature: string
  slot: number
  block_time: number
  err: string | null
  raw: Buffer
  meta: string
}

const summary = (r: Row): TxSummary => ({
  signature: r.signature,
  slot: r.slot,
  blockTime: r.block_time,
  err: r.err === null ? null : JSON.parse(r.err),
})

/** The processed-transaction history the RPC answers from, also after a restart. */
export class TxStore {
  private readonly insertTx
  private readonly insertAddress
  private readonly forAddressStmt
  private readonly bySignature
  private readonly summaryBySignature
  private readonly idOf
  private readonly countStmt
  private readonly maxSlotStmt
  private readonly inSlotsStmt

  constructor(db: ChainDb) {
    this.insertTx = db.prepare(`INSERT INTO solana_transactions (signature, slot, block_time, err, raw, meta)
      VALUES (?, ?, ?, ?, ?, ?)`)
    this.insertAddress = db.prepare('INSERT OR IGNORE INTO solana_address_transactions (address, tx_id) VALUES (?, ?)')
    this.forAddressStmt = db.prepare(`SELECT t.* FROM solana_address_transactions a
      JOIN solana_transactions t ON t.id = a.tx_id
      WHERE a.address = ? AND a.tx_id < ? AND a.tx_id > ? ORDER BY a.tx_id DESC LIMIT ?`)
    this.bySignature = db.prepare('SELECT * FROM solana_transactions WHERE signature = ?')
    // Statuses are asked for far more often than whole transactions: the row without raw and meta.
    this.summaryBySignature = db.prepare(
      'SELECT signature, slot, block_time, err FROM solana_transactions WHERE signature = ?',
    )
    this.idOf = db.prepare('SELECT id FROM solana_transactions WHERE signature = ?').pluck()
    this.countStmt = db.prepare('SELECT COUNT(*) FROM solana_transactions').pluck()
    this.maxSlotStmt = db.prepare('SELECT COALESCE(MAX(slot), 0) FROM solana_transactions').pluck()
    this.inSlotsStmt = db.prepare('SELECT * FROM solana_transactions WHERE slot BETWEEN ? AND ? ORDER BY id')
  }

  /** Records a transaction and indexes it under every account it references. */
  insert(record: TxRecord, addresses: string[]): void {
    const { lastInsertRowid } = this.insertTx.run(
      record.signature,
      record.slot,
      record.blockTime,
      record.err === null ? null : JSON.stringify(record.err),
      Buffer.from(record.raw),
      JSON.stringify(record.meta),
    )
    for (const address of new Set(addresses)) this.insertAddress.run(address, lastInsertRowid)
  }

  has(signature: string): boolean {
    return this.idOf.get(signature) !== undefined
  }

  get(signature: string): TxRecord | undefined {
    const row = this.bySignature.get(signature) as Row | undefined
    if (!row) return undefined
    return { ...summary(row), raw: new Uint8Array(row.raw), meta: JSON.parse(row.meta) as TxMeta }
  }

  summary(signature: string): TxSummary | undefined {
    const row = this.summaryBySignature.get(signature) as Row | undefined
    return row && summary(row)
  }

  /** Newest first; `before`/`until` are signatures bounding the page (exclusive), as in the RPC. */
  forAddress(address: string, opts: { limit: number; before?: string; until?: string }): TxSummary[] {
    const before = opts.before === undefined ? undefined : (this.idOf.get(opts.before) as number | undefined)
    const until = opts.until === undefined ? undefined : (this.idOf.get(opts.until) as number | undefined)
    // An unknown `before` signature answers an empty page rather than the newest one.
    if (opts.before !== undefined && before === undefined) return []
    const rows = this.forAddressStmt.all(address, before ?? Number.MAX_SAFE_INTEGER, until ?? 0, opts.limit) as Row[]
    return rows.map(summary)
  }

  /** The transactions of slots `from`..`to` (inclusive), in the order they were executed: a block's entries. */
  inSlots(from: number, to: number): TxRecord[] {
    return (this.inSlotsStmt.all(from, to) as Row[]).map((row) => ({
      ...summary(row),
      raw: new Uint8Array(row.raw),
      meta: JSON.parse(row.meta) as TxMeta,
    }))
  }

  count(): number {
    return this.countStmt.get() as number
  }

  maxSlot(): number {
    return this.maxSlotStmt.get() as number
  }
}
