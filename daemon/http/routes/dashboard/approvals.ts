import {
  dashboardApproval,
  dashboardApprovalParams,
  dashboardApprovals,
  dashboardPaths,
} from '../../../../src/sdk/dashboard/index.js'
import { route } from '../../route.js'

/**
 * The approvals view (src/sdk/dashboard/approvals.ts): the wallet's user's pending and decided
 * approvals, and its decisions. Another user's approval answers NOT_FOUND, as one that does not exist.
 */
export const approvalsList = route({
  method: 'GET',
  path: dashboardPaths.approvals,
  auth: 'session',
  surface: 'dashboard',
  summary:
    "the signed-in wallet's approvals: pending (awaiting a decision) " +
    "and the latest decided, with each agent's name and seller host",
  response: dashboardApprovals,
  handler: async (c, s, { session }) => c.json(await s.approvals.list(session.wallet)),
})

export const approvalApprove = route({
  method: 'POST',
  path: dashboardPaths.approvalApprove,
  auth: 'session',
  surface: 'dashboard',
  params: dashboardApprovalParams,
  summary:
    "approve a pending approval: the agent's same request with approvalId " +
    'is then signed and paid once, within its limits at that moment',
  response: dashboardApproval,
  errors: ['NOT_FOUND', 'APPROVAL_NOT_PENDING'],
  handler: async (c, s, { session, params }) =>
    c.json(await s.approvals.decide(session.wallet, params.approvalId, 'approved')),
})

export const approvalDeny = route({
  method: 'POST',
  path: dashboardPaths.approvalDeny,
  auth: 'session',
  surface: 'dashboard',
  params: dashboardApprovalParams,
  summary: 'deny a pending approval: nothing is ever signed for it',
  response: dashboardApproval,
  errors: ['NOT_FOUND', 'APPROVAL_NOT_PENDING'],
  handler: async (c, s, { session, params }) =>
    c.json(await s.approvals.decide(session.wallet, params.approvalId, 'denied')),
})
