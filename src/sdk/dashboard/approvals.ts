import { z } from 'zod'
import { approval } from '../platform/approvals.js'

/**
 * The dashboard's approvals view (issue 41 items 3 and 7): what the platform's GET /api/approvals
 * answers, for the signed-in wallet's platform user, with what an owner decides by: the agent's
 * name and the seller's host (a pay's URL read once on the server, so the page never parses it).
 * Approve and deny are the platform's decisions (POST /api/approvals/:approvalId/approve, deny):
 * the same store transition, so a decision made here and one made with `parx approvals` cannot
 * both win.
 */
export const dashboardApproval = approval.extend({
  agentName: z.string(),
  /** pay: the seller URL's host (with its port, if any); send: null (`target` is the recipient). */
  host: z.string().nullable(),
})
export type DashboardApproval = z.infer<typeof dashboardApproval>

/** How many decided (approved, denied, used, expired) approvals the view lists, newest first. */
export const DECIDED_SHOWN = 20

export const dashboardApprovals = z.object({
  /** Awaiting a decision and not expired, newest first. */
  pending: z.array(dashboardApproval),
  /** The latest DECIDED_SHOWN of any other state. */
  decided: z.array(dashboardApproval),
})
export type DashboardApprovals = z.infer<typeof dashboardApprovals>

export const dashboardApprovalParams = z.object({ approvalId: z.string().uuid('must be a UUID') }).strict()
