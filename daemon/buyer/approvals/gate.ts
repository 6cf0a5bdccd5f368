import { createHash } from 'node:crypto'
import type { AgentRow } from '../../platform/store.js'
import { USD_DECIMALS, usdMicros } from '../limits.js'
import { type ApprovalRow, type ApprovalStore, approvalRequired } from './store.js'

/**
 * How long an owner has to decide, and the agent to use an approval, by default: 15 minutes (config
 * `platform.approvalTtlSeconds`).
 */
export const APPROVAL_TTL_SECONDS = 900

export type ApprovalGateDeps = {
  approvals: ApprovalStore
  ttlSeconds: number
  /** Tells the owner an approval waits (the `approval.requested` webhook); its failure never fails the request. */
  onRequested?(row: ApprovalRow): Promise<void>
}

/** What the agent asked, as the gate sees it: the hash binds an approval to exactly this request. */
export type GatedSpend = {
  kind: 'pay' | 'send'
  request: unknown
  target: string
  method: string | null
  amount: string
  token: string
  amountMicros: bigint
  approvalId?: string
}

/**
 * Whether a spend of `amountMicros` is above the agent's approval threshold (none set: never); the gate and the dry-run
 * verdict ask this one question.
 */
export function needsApproval(agent: Pick<AgentRow, 'approve_above_usd'>, amountMicros: bigint): boolean {
  if (agent.approve_above_usd === null || agent.approve_above_usd === undefined) return false
  return amountMicros > usdMicros(agent.approve_above_usd, USD_DECIMALS)
}

/** sha256 over the request's fields in a fixed order: the agent's retry must ask the same thing. */
export const requestHash = (request: unknown): string =>
  createHash('sha256').update(JSON.stringify(request)).digest('hex')

/**
 * Called by pay and send once the amount is known and before anything is reserved or signed. At
 * or under the agent's `approveAboveUsd` (or with none) it returns at once. Above it: without an
 * approvalId a pending approval is stored and APPROVAL_REQUIRED thrown; with one, the approval is
 * consumed (once, in the store) and the caller goes on to reserve against the limits as they are
 * now. Who executes: the agent's retry, not the platform on approve, so the seller's answer goes
 * to the agent that asked, a pay is never made with nobody waiting for its answer, and the
 * approval only adds a step in front of the normal path (freeze, limits, signing) instead of a
 * second path to keep in step with it.
 */
export async function gateApproval(d: ApprovalGateDeps, agent: AgentRow, s: GatedSpend): Promise<void> {
  if (!needsApproval(agent, s.amountMicros)) return
  const hash = requestHash(s.request)
  if (s.approvalId !== undefined) {
    await d.approvals.consume(s.approvalId, { agentId: agent.id, requestHash: hash, amountMicros: s.amountMicros })
    return
  }
  const row = await d.approvals.create(
    {
      agent_id: agent.id,
      user_id: agent.user_id,
      kind: s.kind,
      request_hash: hash,
      target: s.target,
      method: s.method,
      amount: s.amount,
      token: s.token,
      amountMicros: s.amountMicros,
    },
    d.ttlSeconds * 1000,
  )
  await d.onRequested?.(row).catch(() => {})
  throw approvalRequired(row)
}
