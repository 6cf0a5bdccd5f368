import { BaseError } from '../../src/errors/index.js'
import {
  encodeCursor,
  PAYMENTS_PAGE,
  type Payment,
  type PaymentKind,
  type PaymentsPage,
  REPORT_MAX_DAYS,
  type Report,
} from '../../src/sdk/platform/history.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import type { Store } from '../store/store.js'
import type { AgentHoldRow } from './holds/store.js'
import { microsToUsd } from './limits.js'
import { aggregateHolds, aggregateSpends, stillHeld } from './report.js'
import type { SpendRow } from './spends.js'

/** Filters of the history and the report, parsed (times in epoch ms). */
export type SpendFilter = { since?: number; until?: number; kind?: PaymentKind; host?: string }
export type PaymentsQueryParsed = SpendFilter & { limit?: number; cursor?: { createdAt: number; id: string } }

const DAY_MS = 86_400_000

/**
 * One page of an agent's spends, newest first. Keyset paging on (created_at, id): the cursor is
 * the last row returned, and the next page starts strictly after it in that order, so rows
 * written meanwhile (always newer) never shift a page. The (agent_id, created_at) index serves it
 * on SQLite and PostgreSQL alike.
 */
export async function paymentsPage(store: Store, agentId: string, q: PaymentsQueryParsed): Promise<PaymentsPage> {
  const limit = q.limit ?? PAYMENTS_PAGE.default
  // Whether each row has a signed receipt (daemon/buyer/receipts/), read in the same query.
  let sel = filtered(store, agentId, q)
    .selectAll('platform_spends')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('platform_receipts')
            .select('platform_receipts.payment_id')
            .whereRef('platform_receipts.payment_id', '=', 'platform_spends.id'),
        )
        .as('has_receipt'),
    )
  if (q.cursor) {
    const { createdAt, id } = q.cursor
    sel = sel.where((eb) =>
      eb.or([eb('created_at', '<', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '<', id)])]),
    )
  }
  const rows = await sel
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute()
  const page = rows.slice(0, limit)
  const last = page[page.length - 1]
  const ids = page.filter((r) => r.kind === 'pay').map((r) => r.id)
  const holds = new Map(
    (ids.length
      ? await store.db.selectFrom('platform_agent_holds').selectAll().where('spend_id', 'in', ids).execute()
      : []
    ).map((h) => [h.spend_id, h]),
  )
  return {
    payments: page.map((r) => paymentView(r, holds.get(r.id))),
    nextCursor: rows.length > limit && last ? encodeCursor(Number(last.created_at), last.id) : null,
  }
}

/** The report's totals over [since, until): default the 30 days up to now; longer than REPORT_MAX_DAYS is refused. */
export async function spendReport(
  store: Store,
  agentId: string,
  q: SpendFilter,
  now = Date.now(),
): Promise<Omit<Report, 'agentId' | 'limits'>> {
  const until = q.until ?? now
  const since = q.since ?? until - 30 * DAY_MS
  if (since >= until) throw new BaseError('BAD_REQUEST', `since (${iso(since)}) must be before until (${iso(until)})`)
  if (until - since > REPORT_MAX_DAYS * DAY_MS)
    throw new BaseError('BAD_REQUEST', `a report covers at most ${REPORT_MAX_DAYS} days; narrow since/until`)
  const rows = await filtered(store, agentId, { ...q, since, until })
    .select(['kind', 'state', 'token', 'amount', 'amount_micros', 'host', 'created_at'])
    .where('state', '!=', 'released')
    .execute()
  // The holds of the window's pays, released ones too: a hold voided whole moved nothing but is shown as voided.
  const holds = await store.db
    .selectFrom('platform_agent_holds')
    .select(['token', 'decimals', 'status', 'max_amount', 'captured', 'voided', 'refunded', 'reclaimed'])
    .where('agent_id', '=', agentId)
    .where('spend_id', 'in', filtered(store, agentId, { ...q, since, until }).select('id'))
    .execute()
  return { since: iso(since), until: iso(until), ...aggregateSpends(rows), holds: aggregateHolds(holds) }
}

function filtered(store: Store, agentId: string, f: SpendFilter) {
  let q = store.db.selectFrom('platform_spends').where('agent_id', '=', agentId)
  if (f.since !== undefined) q = q.where('created_at', '>=', f.since)
  if (f.until !== undefined) q = q.where('created_at', '<', f.until)
  if (f.kind) q = q.where('kind', '=', f.kind)
  if (f.host) q = q.where('host', '=', f.host)
  return q
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString()

/** A ledger row as the contract shows it: never the signed payment's proof. */
export function paymentView(r: SpendRow & { has_receipt?: unknown }, hold?: AgentHoldRow): Payment {
  return {
    id: r.id,
    kind: r.kind,
    state: r.state,
    amount: r.amount,
    token: r.token,
    amountUsd: microsToUsd(BigInt(r.amount_micros)),
    host: r.host ?? null,
    recipient: r.kind === 'swap' ? null : r.recipient,
    tx: r.tx,
    userOp: r.user_op,
    reason: r.reason,
    createdAt: iso(r.created_at),
    // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
    receipt: r.has_receipt === true || Number(r.has_receipt) === 1,
    ...(hold ? { hold: holdView(hold) } : {}),
  }
}

/** An agent's auth-capture hold as history shows it (token units). */
export function holdView(h: AgentHoldRow): NonNullable<Payment['hold']> {
  const u = (v: string | bigint) => fromBaseUnits(BigInt(v), h.decimals)
  return {
    id: h.id,
    status: h.status as 'held' | 'settled' | 'done',
    held: u(h.max_amount),
    holding: u(stillHeld(h)),
    captured: u(h.captured),
    voided: u(h.voided),
    refunded: u(h.refunded),
    reclaimed: u(h.reclaimed),
    captureDeadline: iso(Number(h.capture_deadline) * 1000),
    refundDeadline: iso(Number(h.refund_deadline) * 1000),
  }
}
