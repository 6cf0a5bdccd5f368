import { type Selectable, sql } from 'kysely'
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
  signature: r.signature,
  network: r.network,
  kind: r.kind as SolSwapKind,
  user: r.user,
  inSymbol: r.in_symbol,
  outSymbol: r.out_symbol,
  outMint: r.out_mint,
  inAmount: BigInt(r.in_amount),
  outAmount: BigInt(r.out_amount),
  blockhash: r.blockhash,
  lastValidBlockHeight: Number(r.last_valid_block_height),
  status: r.status,
  slot: r.slot === null ? null : Number(r.slot),
  err: r.err === null ? null : JSON.parse(r.err),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
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
  settle(
    signature: string,
    v: { status: Exclude<SolSwapStatus, 'built'>; slot?: number | null; err?: unknown },
  ): Promise<void>
  /** Forgets a transaction that was never handed out (its simulation failed). */
  discard(signature: string): Promise<void>
  get(signature: string): Promise<SolSwapRecord | undefined>
  /** Newest first; transactions that expired unsubmitted never happened and are left out. */
  recent(network: string, limit: number): Promise<SolSwapRecord[]>
}

/**
 * The Solana swaps this daemon co-signed. Reading the reservations, comparing and inserting is
 * not one statement, so callers that promise inventory do it under a lock (SolDeps.reservations).
 *
 * On SQLite (one process writes the store) the output still promised per network and mint is
 * also kept as a running total in memory: summing every open swap's row on each build made a
 * build cost grow with the swaps in flight (2,000 open swaps: about 2 ms per sum, two sums per
 * build, all on the event loop). See `builtTotals` for how it stays equal to the rows.
 */
export function solSwapStore(store: Store, now: () => number = Date.now): SolSwapStore {
  const { db } = store
  const totals = store.dialect === 'sqlite' ? builtTotals() : undefined
  const sum = (rows: { out_amount: string }[]) => rows.reduce((acc, r) => acc + BigInt(r.out_amount), 0n)
  const builtSum = (network: string, outMint: string) =>
    totals?.read(network, outMint, readBuilt) ?? readBuilt(network, outMint)
  const readBuilt = async (network: string, outMint: string) =>
    sum(
      await db
        .selectFrom('sol_swaps')
        .select('out_amount')
        .where('status', '=', 'built')
        .where('out_mint', '=', outMint)
        .where('network', '=', network)
        .execute(),
    )
  return {
    async insert(s) {
      const t = now()
      const write = () =>
        db
          .insertInto('sol_swaps')
          .values({
            signature: s.signature,
            network: s.network,
            kind: s.kind,
            user: s.user,
            in_symbol: s.inSymbol,
            out_symbol: s.outSymbol,
            out_mint: s.outMint,
            in_amount: s.inAmount.toString(),
            out_amount: s.outAmount.toString(),
            blockhash: s.blockhash,
            last_valid_block_height: s.lastValidBlockHeight,
            status: 'built',
            created_at: t,
            updated_at: t,
          })
          .execute()
          .then(() => ({ network: s.network, out_mint: s.outMint, out_amount: s.outAmount.toString() }))
      await (totals ? totals.write(write, 1n) : write())
    },
    async mark() {
      const r = await db
        .selectFrom('sol_swaps')
        .select((eb) => eb.fn.max('settled_seq').as('seq'))
        .executeTakeFirst()
      return Number(r?.seq ?? 0)
    },
    async reserved(network, outMint, mark) {
      // The open swaps, plus those settled after the mark (indexed by settled_seq: few rows).
      const late = db
        .selectFrom('sol_swaps')
        .select('out_amount')
        .where('settled_seq', '>', mark)
        .where('out_mint', '=', outMint)
        .where('network', '=', network)
      const [built, lateRows] = await Promise.all([builtSum(network, outMint), late.execute()])
      return built + sum(lateRows)
    },
    async open(network, limit) {
      const rows = await db
        .selectFrom('sol_swaps')
        .selectAll()
        .where('network', '=', network)
        .where('status', '=', 'built')
        .orderBy('id')
        .limit(limit)
        .execute()
      return rows.map(fromRow)
    },
    async settle(signature, v) {
      const write = () =>
        db
          .updateTable('sol_swaps')
          .set({
            status: v.status,
            slot: v.slot ?? null,
            err: v.err == null ? null : JSON.stringify(v.err),
            updated_at: now(),
            settled_seq: sql<number>`(SELECT COALESCE(MAX(settled_seq), 0) + 1 FROM sol_swaps)`,
          })
          .where('signature', '=', signature)
          .where('status', '=', 'built')
          .returning(['network', 'out_mint', 'out_amount'])
          .executeTakeFirst()
      await (totals ? totals.write(write, -1n) : write())
    },
    async discard(signature) {
      const write = () =>
        db
          .deleteFrom('sol_swaps')
          .where('signature', '=', signature)
          .where('status', '=', 'built')
          .returning(['network', 'out_mint', 'out_amount'])
          .executeTakeFirst()
      await (totals ? totals.write(write, -1n) : write())
    },
    async get(signature) {
      const r = await db.selectFrom('sol_swaps').selectAll().where('signature', '=', signature).executeTakeFirst()
      return r && fromRow(r)
    },
    async recent(network, limit) {
      const rows = await db
        .selectFrom('sol_swaps')
        .selectAll()
        .where('network', '=', network)
        .where('status', '!=', 'expired')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
      return rows.map(fromRow)
    },
  }
}

type Moved = { network: string; out_mint: string; out_amount: string } | undefined

/**
 * Output promised by `built` rows, per network and mint, as a running total. A total is first
 * read from the rows, then moved by every write of a `built` row (insert +, settle or discard -)
 * by the amount the write itself reports. A first read that overlaps a write may or may not have
 * seen it, so it is used but not kept; a write that fails drops the total (read again next time).
 */
function builtTotals() {
  const totals = new Map<string, bigint>()
  const key = (network: string, mint: string) => `${network}\n${mint}`
  let writing = 0
  let generation = 0
  return {
    async read(
      network: string,
      mint: string,
      fromRows: (network: string, mint: string) => Promise<bigint>,
    ): Promise<bigint> {
      const known = totals.get(key(network, mint))
      if (known !== undefined) return known
      const quiet = writing === 0
      const at = generation
      const total = await fromRows(network, mint)
      if (quiet && writing === 0 && at === generation) totals.set(key(network, mint), total)
      return total
    },
    async write(run: () => Promise<Moved>, sign: 1n | -1n): Promise<void> {
      writing++
      generation++
      let moved: Moved
      try {
        moved = await run()
      } catch (e) {
        totals.clear()
        throw e
      } finally {
        writing--
        generation++
      }
      if (!moved) return
      const k = key(moved.network, moved.out_mint)
      const total = totals.get(k)
      if (total !== undefined) totals.set(k, total + sign * BigInt(moved.out_amount))
    },
  }
}
