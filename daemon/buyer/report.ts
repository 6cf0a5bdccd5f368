import type { PaymentKind, Report } from '../../src/sdk/platform/history.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import type { AgentHoldRow } from './holds/store.js'
import { microsToUsd } from './limits.js'

/** What the report reads of a spend: the ledger's columns it totals. */
export type ReportRow = {
  kind: PaymentKind
  state: 'reserved' | 'confirmed' | 'released'
  token: string
  amount: string
  amount_micros: number | string
  host: string | null
  created_at: number | string
}

type Acc = { count: number; micros: bigint; pending: number }
const acc = (): Acc => ({ count: 0, micros: 0n, pending: 0 })
const out = (a: Acc) => ({ count: a.count, usd: microsToUsd(a.micros), pending: a.pending })

/**
 * Totals of an agent's spends per UTC day, per seller host (pay only), per token and per kind.
 * Pure, so it is tested alone; the daemon reads the window's rows and passes them here (the same
 * arithmetic on SQLite and PostgreSQL, whose SUMs of a bigint come back as different types).
 * Released spends moved nothing and are left out; reserved ones count (as the limits count them)
 * and are also counted as `pending`. Token amounts are summed exactly in the token's own units.
 */
export function aggregateSpends(
  rows: readonly ReportRow[],
): Pick<Report, 'total' | 'byDay' | 'byHost' | 'byToken' | 'byKind'> {
  const total = acc()
  const days = new Map<string, Acc>()
  const hosts = new Map<string, Acc>()
  const tokens = new Map<string, Acc & { amount: string }>()
  const kinds = new Map<PaymentKind, Acc>()
  const add = (a: Acc, r: ReportRow, micros: bigint) => {
    a.count++
    a.micros += micros
    if (r.state === 'reserved') a.pending++
  }
  for (const r of rows) {
    if (r.state === 'released') continue
    const micros = BigInt(r.amount_micros)
    add(total, r, micros)
    const day = new Date(Number(r.created_at)).toISOString().slice(0, 10)
    add(get(days, day, acc), r, micros)
    if (r.kind === 'pay' && r.host) add(get(hosts, r.host, acc), r, micros)
    const t = get(tokens, r.token, () => ({ ...acc(), amount: '0' }))
    add(t, r, micros)
    t.amount = addDecimals(t.amount, r.amount)
    add(get(kinds, r.kind, acc), r, micros)
  }
  const byUsd = (a: [string, Acc], b: [string, Acc]) =>
    a[1].micros === b[1].micros ? a[0].localeCompare(b[0]) : a[1].micros > b[1].micros ? -1 : 1
  return {
    total: out(total),
    byDay: [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, a]) => ({ day, ...out(a) })),
    byHost: [...hosts].sort(byUsd).map(([host, a]) => ({ host, ...out(a) })),
    byToken: [...tokens].sort(byUsd).map(([token, a]) => ({ token, amount: a.amount, ...out(a) })),
    byKind: [...kinds].sort(byUsd).map(([kind, a]) => ({ kind: kind as PaymentKind, ...out(a) })),
  }
}

/** What the report reads of an auth-capture hold. */
export type HoldReportRow = Pick<
  AgentHoldRow,
  'token' | 'decimals' | 'status' | 'max_amount' | 'captured' | 'voided' | 'refunded' | 'reclaimed'
>

/** What a hold still holds, in base units: what the seller may yet capture (0 once nothing is held any more). */
export function stillHeld(h: HoldReportRow): bigint {
  const left =
    h.status === 'held' ? BigInt(h.max_amount) - BigInt(h.captured) - BigInt(h.voided) - BigInt(h.reclaimed) : 0n
  return left > 0n ? left : 0n
}

const HOLD_AMOUNTS = ['held', 'holding', 'captured', 'voided', 'refunded', 'reclaimed'] as const

/**
 * The window's auth-capture holds per token, summed in base units and shown in the token's units,
 * by symbol: what the agent signed for, what is still held, captured, and what came back.
 */
export function aggregateHolds(rows: readonly HoldReportRow[]): Report['holds'] {
  const tokens = new Map<string, { count: number; decimals: number } & Record<(typeof HOLD_AMOUNTS)[number], bigint>>()
  for (const h of rows) {
    const t = get(tokens, h.token, () => ({
      count: 0,
      decimals: Number(h.decimals),
      held: 0n,
      holding: 0n,
      captured: 0n,
      voided: 0n,
      refunded: 0n,
      reclaimed: 0n,
    }))
    t.count++
    t.held += BigInt(h.max_amount)
    t.holding += stillHeld(h)
    t.captured += BigInt(h.captured)
    t.voided += BigInt(h.voided)
    t.refunded += BigInt(h.refunded)
    t.reclaimed += BigInt(h.reclaimed)
  }
  return [...tokens]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([token, t]) => ({
      token,
      count: t.count,
      ...(Object.fromEntries(HOLD_AMOUNTS.map((k) => [k, fromBaseUnits(t[k], t.decimals)])) as Record<
        (typeof HOLD_AMOUNTS)[number],
        string
      >),
    }))
}

function get<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k)
  if (v === undefined) m.set(k, (v = make()))
  return v
}

/** a + b for non-negative decimal strings, exactly, without trailing zeros ("0.1" + "0.25" = "0.35"). */
export function addDecimals(a: string, b: string): string {
  const places = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0)
  return fromBaseUnits(toBaseUnits(a, places) + toBaseUnits(b, places), places)
}
