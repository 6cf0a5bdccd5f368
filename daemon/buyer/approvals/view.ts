import type { Approval } from '../../../src/sdk/platform/approvals.js'
import { microsToUsd } from '../limits.js'
import { type ApprovalRow, stateOf } from './store.js'

const iso = (t: number | string | null) => (t === null ? null : new Date(Number(t)).toISOString())

/** The approval as routes, webhooks and the dashboard show it (`expired` computed, never stored). */
export function approvalView(r: ApprovalRow, now = Date.now()): Approval {
  return {
    id: r.id,
    agentId: r.agent_id,
    kind: r.kind,
    target: r.target,
    method: r.method,
    amount: r.amount,
    token: r.token,
    amountUsd: microsToUsd(BigInt(r.amount_micros)),
    state: stateOf(r, now),
    createdAt: iso(r.created_at)!,
    expiresAt: iso(r.expires_at)!,
    decidedAt: iso(r.decided_at),
    consumedAt: iso(r.consumed_at),
  }
}
