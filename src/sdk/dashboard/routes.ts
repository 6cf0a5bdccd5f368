/** The header a signed-in page sends its session's `csrfToken` in, on every POST and DELETE. */
export const CSRF_HEADER = 'x-csrf-token'
export const SESSION_COOKIE = 'parx_dashboard'

/**
 * Paths of the dashboard (its page and JSON routes), so the page, the daemon and tests spell them once.
 * Plain values, no zod: the page's browser bundle imports this file.
 */
export const DASHBOARD_PATH = '/dashboard'

export const dashboardPaths = {
  page: DASHBOARD_PATH,
  script: `${DASHBOARD_PATH}/app.js`,
  style: `${DASHBOARD_PATH}/app.css`,
  siweMessage: `${DASHBOARD_PATH}/api/siwe/message`,
  siweLogin: `${DASHBOARD_PATH}/api/siwe/login`,
  session: `${DASHBOARD_PATH}/api/session`,
  logout: `${DASHBOARD_PATH}/api/logout`,
  partnerKeys: `${DASHBOARD_PATH}/api/partner-keys`,
  partnerKey: `${DASHBOARD_PATH}/api/partner-keys/:id`,
  partnerKeyDeactivate: `${DASHBOARD_PATH}/api/partner-keys/:id/deactivate`,
  userKeys: `${DASHBOARD_PATH}/api/user-keys`,
  userKey: `${DASHBOARD_PATH}/api/user-keys/:id`,
  agents: `${DASHBOARD_PATH}/api/agents`,
  agent: `${DASHBOARD_PATH}/api/agents/:id`,
  agentLimits: `${DASHBOARD_PATH}/api/agents/:id/limits`,
  agentFreeze: `${DASHBOARD_PATH}/api/agents/:id/freeze`,
  agentUnfreeze: `${DASHBOARD_PATH}/api/agents/:id/unfreeze`,
  agentKeys: `${DASHBOARD_PATH}/api/agents/:id/keys`,
  agentKey: `${DASHBOARD_PATH}/api/agents/:id/keys/:keyId`,
  agentSpending: `${DASHBOARD_PATH}/api/agents/:id/spending`,
  agentPayments: `${DASHBOARD_PATH}/api/agents/:id/payments`,
  agentPolicy: `${DASHBOARD_PATH}/api/agents/:id/policy`,
  approvals: `${DASHBOARD_PATH}/api/approvals`,
  approvalApprove: `${DASHBOARD_PATH}/api/approvals/:approvalId/approve`,
  approvalDeny: `${DASHBOARD_PATH}/api/approvals/:approvalId/deny`,
  alerts: `${DASHBOARD_PATH}/api/alerts`,
  alertRule: `${DASHBOARD_PATH}/api/alerts/:id`,
} as const
