import type { AnyRoute } from '../../route.js'
import {
  agentFreeze,
  agentKeysCreate,
  agentKeysRevoke,
  agentLimits,
  agentShow,
  agentsCreate,
  agentsList,
  agentUnfreeze,
} from './agents.js'
import { alertsAdd, alertsRemove, alertsView } from './alerts.js'
import { approvalApprove, approvalDeny, approvalsList } from './approvals.js'
import { dashboardPage, dashboardScript, dashboardSlash, dashboardStyle } from './page.js'
import { partnerKeysCreate, partnerKeysDeactivate, partnerKeysDelete, partnerKeysList } from './partner-keys.js'
import { agentPolicySet } from './policy.js'
import { logout, sessionShow, siweLogin, siweMessage } from './siwe.js'
import { agentPayments, agentSpending } from './spending.js'
import { userKeysCreate, userKeysList, userKeysRevoke } from './user-keys.js'

/** The dashboard at {dashboard_url} (docs/dashboard.md "Dashboard"): its page and JSON routes. */
export const dashboardRoutes: AnyRoute[] = [
  dashboardPage,
  dashboardSlash,
  dashboardScript,
  dashboardStyle,
  siweMessage,
  siweLogin,
  sessionShow,
  logout,
  partnerKeysList,
  partnerKeysCreate,
  partnerKeysDeactivate,
  partnerKeysDelete,
  userKeysList,
  userKeysCreate,
  userKeysRevoke,
  agentsList,
  agentsCreate,
  agentShow,
  agentLimits,
  agentFreeze,
  agentUnfreeze,
  agentKeysCreate,
  agentKeysRevoke,
  agentSpending,
  agentPayments,
  agentPolicySet,
  approvalsList,
  approvalApprove,
  approvalDeny,
  alertsView,
  alertsAdd,
  alertsRemove,
] as AnyRoute[]
