import type { Db } from '../store/db.js'
import type { SolSwapKind } from './pairs.js'

export type SolSwapStatus = 'built' | 'confirmed' | 'failed' | 'expired'

export type SolSwapRecord = {
  signature: string
  network: string
  kind: SolSwapKind
  user: string
  inSymbol: string
  outSymbol: string
  outMint: string
  inAmount: bigint
  outAmount: bigint
  blockhash: string
  lastValidBlockHeight: number
  status: SolSwapStatus
  slot: number | null
  err: unknown
  createdAt: number
  updatedAt: number
}

type Row = {
  signature: string; network: string; kind: SolSwapKind; user: string; in_symbol: string; out_symbol: string
  out_mint: string; in_amount: string; out_amount: string; blockhash: string; last_valid_block_height: number
  status: SolSwapStatus; slot: number | null; err: string | null; created_at: number; updated_at: number
}

const fromRow = (r: Row): SolSwapRecord => ({
  signature: r.signature, network: r.network, kind: r.kind, user: r.user, inSymbol: r.in_symbol,
  outSymbol: r.out_symbol, outMint: r.out_mint, inAmount: BigInt(r.in_amount), outAmount: BigInt(r.out_amount),
  blockhash: r.blockhash, lastValidBlockHeight: r.last_valid_block_height, status: r.status, slot: r.slot,
  err: r.err === null ? null : JSON.parse(r.err), createdAt: r.created_at, updatedAt: r.updated_at,
})

export type NewSolSwap = Omit<SolSwapRecord, 'status' | 'slot' | 'err' | 'createdAt' | 'updatedAt'>

/**
 * The Solana swaps this daemon co-signed, in SQLite. Every method is synchronous, so a caller can
 * read the reservations, compare and `insert` without another request slipping in between.
 */
export function solSwapStore(db: Db, now: () => number = Date.now) {
  const insert = db.prepare(`INSERT INTO sol_swaps (signature, network, kind, user, in_symbol, out_symbol, out_mint,
    in_amount, out_amount, blockhash, last_valid_block_height, status, created_at, updated_at)
    VALUES (@signature, @network, @kind, @user, @inSymbol, @outSymbol, @outMint, @inAmount, @outAmount, @blockhash,
    @lastValidBlockHeight, 'built', @now, @now)`)
  // Two indexed halves rather than one OR, which would scan the whole history.
  const reserved = db.prepare(`SELECT out_amount FROM sol_swaps WHERE status = 'built' AND out_mint = @outMint AND network = @network
    UNION ALL SELECT out_amount FROM sol_swaps WHERE settled_seq > @mark AND out_mint = @outMint AND network = @network`).pluck()
  const lastSettled = db.prepare(`SELECT COALESCE(MAX(settled_seq), 0) FROM sol_swaps`).pluck()
  const open = db.prepare(`SELECT * FROM sol_swaps WHERE network = ? AND status = 'built' ORDER BY id LIMIT ?`)
  const settle = db.prepare(`UPDATE sol_swaps SET status = @status, slot = @slot, err = @err, updated_at = @now,
    settled_seq = (SELECT COALESCE(MAX(settled_seq), 0) + 1 FROM sol_swaps) WHERE signature = @signature AND status = 'built'`)
  const remove = db.prepare(`DELETE FROM sol_swaps WHERE signature = ? AND status = 'built'`)
  const one = db.prepare(`SELECT * FROM sol_swaps WHERE signature = ?`)
  const recent = db.prepare(`SELECT * FROM sol_swaps WHERE network = ? AND status != 'expired' ORDER BY id DESC LIMIT ?`)

  return {
    insert(s: NewSolSwap): void {
      insert.run({ ...s, inAmount: s.inAmount.toString(), outAmount: s.outAmount.toString(), now: now() })
    },
    /** A point in the settling order: take it before reading balances and pass it to `reserved`. */
    mark(): number {
      return lastSettled.get() as number
    },
    /**
     * Output still promised by co-signed transactions that have not landed or expired, counting
     * those settled after `mark` too: the balances read since may not show their landing yet.
     */
    reserved(network: string, outMint: string, mark: number): bigint {
      return (reserved.all({ network, outMint, mark }) as string[]).reduce((sum, a) => sum + BigInt(a), 0n)
    },
    /** Transactions handed out whose fate is not known yet, oldest first. */
    open(network: string, limit: number): SolSwapRecord[] {
      return (open.all(network, limit) as Row[]).map(fromRow)
    },
    /** Records a landing or an expiry; only a `built` row moves, so the first verdict sticks. */
    settle(signature: string, v: { status: Exclude<SolSwapStatus, 'built'>; slot?: number | null; err?: unknown }): void {
      settle.run({ signature, status: v.status, slot: v.slot ?? null, err: v.err == null ? null : JSON.stringify(v.err), now: now() })
    },
    /** Forgets a transaction that was never handed out (its simulation failed). */
    discard(signature: string): void {
      remove.run(signature)
    },
    get(signature: string): SolSwapRecord | undefined {
      const r = one.get(signature) as Row | undefined
      return r && fromRow(r)
    },
    /** Newest first; transactions that expired unsubmitted never happened and are left out. */
    recent(network: string, limit: number): SolSwapRecord[] {
      return (recent.all(network, limit) as Row[]).map(fromRow)
    },
  }
}

export type SolSwapStore = ReturnType<typeof solSwapStore>
