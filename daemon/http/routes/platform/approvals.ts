import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { approvalView } from '../../../buyer/approvals/view.js'
import type { Caller, PlatformOperations } from '../../../platform/service.js'
import { platformRoute } from './contract-route.js'

/**
 * The approval if the caller may see it: its owning user, or the agent it was asked for; else NOT_FOUND (not revealed).
 */
async function visible(s: PlatformOperations, caller: Caller, id: string) {
  const row = await s.approvals.get(id)
  const mine = row && (caller.kind === 'user' ? row.user_id === caller.userId : row.agent_id === caller.agentId)
  if (!row || !mine) throw new BaseError('NOT_FOUND', `no approval ${id} for this key`)
  return row
}

export const listApprovals = platformRoute(platformRoutes.listApprovals, async (c, s, { query, caller }) => {
  const userId = s.userOf(caller)
  const rows = await s.approvals.listForUser(userId, { pending: query.state === 'pending' })
  return c.json({ approvals: rows.map((r) => approvalView(r)) })
})

export const showApproval = platformRoute(platformRoutes.showApproval, async (c, s, { params, caller }) => {
  return c.json(approvalView(await visible(s, caller, params.approvalId)))
})

/** Only the owning user decides: an agent key, even the one that asked, is FORBIDDEN (auth `user`). */
export const approveApproval = platformRoute(platformRoutes.approveApproval, async (c, s, { params, caller }) => {
  const userId = s.userOf(caller)
  const row = await s.owner.decide(params.approvalId, userId, 'approved')
  return c.json(approvalView(row))
})

export const denyApproval = platformRoute(platformRoutes.denyApproval, async (c, s, { params, caller }) => {
  const userId = s.userOf(caller)
  const row = await s.owner.decide(params.approvalId, userId, 'denied')
  return c.json(approvalView(row))
})

export const listAgentApprovals = platformRoute(platformRoutes.listAgentApprovals, async (c, s, { params, caller }) => {
  const agent = await s.ownedAgent(caller, params.id)
  return c.json({
    approvals: (await s.approvals.listForAgent(agent.id, { pending: true })).map((r) => approvalView(r)),
  })
})
