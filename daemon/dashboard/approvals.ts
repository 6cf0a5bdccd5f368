import type { DashboardApproval, DashboardApprovals } from '../../src/sdk/dashboard/approvals.js'
import { DECIDED_SHOWN } from '../../src/sdk/dashboard/approvals.js'
import type { ApprovalRow, ApprovalStore } from '../buyer/approvals/store.js'
import { approvalView } from '../buyer/approvals/view.js'
import type { PlatformService } from '../platform/service.js'

/** What the view needs of the platform: its approvals, the user's agents (for their names), its log. */
export type DashboardApprovalsDeps = {
  approvals: ApprovalStore
  agents(userId: string): Promise<{ id: string; name: string }[]>
  log: Pick<PlatformService['log'], 'info'>
  /** The platform user of a signed-in wallet (made at its first sign-in). */
  userOf(wallet: string): Promise<{ id: string }>
}

/** A pay's seller host, as the owner decides by; a send's target is an address, with no host. */
function hostOf(r: ApprovalRow): string | null {
  if (r.kind !== 'pay') return null
  try {
    return new URL(r.target).host
  } catch {
    return null
  }
}

/**
 * The approvals view of the dashboard (src/sdk/dashboard/approvals.ts) for the platform user of
 * the signed-in wallet. Decisions are the platform store's one conditional transition
 * (daemon/buyer/approvals/store.ts), the same the user-key routes make: a second decision, from
 * here or from `parx approvals`, on this replica or another, answers APPROVAL_NOT_PENDING.
 */
export function dashboardApprovals(p: DashboardApprovalsDeps) {
  const { userOf } = p
  const names = async (userId: string) => new Map((await p.agents(userId)).map((a) => [a.id, a.name]))
  const view = (r: ApprovalRow, agents: Map<string, string>, now: number): DashboardApproval => ({
    ...approvalView(r, now),
    agentName: agents.get(r.agent_id) ?? r.agent_id,
    host: hostOf(r),
  })
  return {
    async list(wallet: string, now = Date.now()): Promise<DashboardApprovals> {
      const user = await userOf(wallet)
      const [pending, latest, agents] = await Promise.all([
        p.approvals.listForUser(user.id, { pending: true, now }),
        p.approvals.listForUser(user.id, { now }),
        names(user.id),
      ])
      const waiting = new Set(pending.map((r) => r.id))
      return {
        pending: pending.map((r) => view(r, agents, now)),
        decided: latest
          .filter((r) => !waiting.has(r.id))
          .slice(0, DECIDED_SHOWN)
          .map((r) => view(r, agents, now)),
      }
    },
    async decide(wallet: string, approvalId: string, decision: 'approved' | 'denied'): Promise<DashboardApproval> {
      const user = await userOf(wallet)
      const row = await p.approvals.decide(approvalId, user.id, decision)
      p.log.info({ approval: row.id, agent: row.agent_id, wallet }, `approval ${decision} (dashboard)`)
      return view(row, await names(user.id), Date.now())
    },
  }
}
