import { sql, type Selectable } from 'kysely'
import type { Store } from '../store/store.js'
import type { SolSwapsTable } from '../store/tables/solana.js'
import type { SolSwapKind } from './pairs.js'

export type SolSwapStatus = SolSwapsTable['status']

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

const fromRow = (r: Selectable<SolSwapsTable>): SolSwapRecord => ({
  signature: r.signature, network: r.network, kind: r.kind as SolSwapKind, user: r.user, inSymbol: r.in_symbol,
  outSymbol: r.out_symbol, outMint: r.out_mint, inAmount: BigInt(r.in_amount), outAmount: BigInt(r.out_amount),
  blockhash: r.blockhash, lastValidBlockHeight: Number(r.last_valid_block_height), status: r.status,
  slot: r.slot === null ? null : Number(r.slot), err: r.err === null ? null : JSON.parse(r.err),
  createdAt: Number(r.created_at), updatedAt: Number(r.updated_at),
})

export type NewSolSwap = Omit<SolSwapRecord, 'status' | 'slot' | 'err' | 'createdAt' | 'updatedAt'>

export type SolSwapStore = {
  insert(s: NewSolSwap): Promise<void>
  /** A point in the settling order: take it before reading balances and pass it to `reserved`. */
  mark(): Promise<number>
  /**
   * Output still promised by co-signed transactions that have not landed or expired, counting
   * those settled after `mark` too: the balances read since may not show their landing yet.
   */
  reserved(network: string, outMint: string, mark: number): Promise<bigint>
  /** Transactions handed out whose fate is not known yet, oldest first. */
  open(network: string, limit: number): Promise<SolSwapRecord[]>
  /** Records a landing or an expiry; only a `built` row moves, so the first verdict sticks. */
  settle(signature: string, v: { status: Exclude<SolSwapStatus, 'built'>; slot?: number | null; err?: unknown }): Promise<void>
  /** Forgets a transaction that was never handed out (its simulation failed). */
  discard(signature: string): Promise<void>
  get(signature: string): Promise<SolSwapRecord | undefined>
  /** Newest first; transactions that expired unsubmitted never happened and are left out. */
  recent(network: string, limit: number): Promise<SolSwapRecord[]>
}

/**
 * The Solana swaps this daemon co-signed. Reading the reservations, comparing and inserting is
 * not one statement, so callers that promise inventory do it under a lock (SolDeps.reservations).
 */
export function solSwapStore(store: Store, now: () => number = Date.now): SolSwapStore {
  const { db } = store
  return {
    async insert(s) {
      const t = now()
      await db.insertInto('sol_swaps').values({
        signature: s.signature, network: s.network, kind: s.kind, user: s.user, in_symbol: s.inSymbol, out_symbol: s.outSymbol,
        out_mint: s.outMint, in_amount: s.inAmount.toString(), out_amount: s.outAmount.toString(), blockhash: s.blockhash,
        last_valid_block_height: s.lastValidBlockHeight, status: 'built', created_at: t, updated_at: t,
      }).execute()
    },
    async mark() {
      const r = await db.selectFrom('sol_swaps').select((eb) => eb.fn.max('settled_seq').as('seq')).executeTakeFirst()
      return Number(r?.seq ?? 0)
    },
    async reserved(network, outMint, mark) {
      // Two indexed halves rather than one OR, which would scan the whole history.
      const built = db.selectFrom('sol_swaps').select('out_amount').where('status', '=', 'built').where('out_mint', '=', outMint).where('network', '=', network)
      const late = db.selectFrom('sol_swaps').select('out_amount').where('settled_seq', '>', mark).where('out_mint', '=', outMint).where('network', '=', network)
      const rows = await built.unionAll(late).execute()
      return rows.reduce((sum, r) => sum + BigInt(r.out_amount), 0n)
    },
    async open(network, limit) {
      const rows = await db.selectFrom('sol_swaps').selectAll().where('network', '=', network).where('status', '=', 'built').orderBy('id').limit(limit).execute()
      return rows.map(fromRow)
    },
    async settle(signature, v) {
      await db.updateTable('sol_swaps').set({
        status: v.status, slot: v.slot ?? null, err: v.err == null ? null : JSON.stringify(v.err), updated_at: now(),
        settled_seq: sql<number>`(SELECT COALESCE(MAX(settled_seq), 0) + 1 FROM sol_swaps)`,
      }).where('signature', '=', signature).where('status', '=', 'built').execute()
    },
    async discard(signature) {
      await db.deleteFrom('sol_swaps').where('signature', '=', signature).where('status', '=', 'built').execute()
    },
    async get(signature) {
      const r = await db.selectFrom('sol_swaps').selectAll().where('signature', '=', signature).executeTakeFirst()
      return r && fromRow(r)
    },
    async recent(network, limit) {
      const rows = await db.selectFrom('sol_swaps').selectAll().where('network', '=', network).where('status', '!=', 'expired').orderBy('id', 'desc').limit(limit).execute()
      return rows.map(fromRow)
    },
  }
}
