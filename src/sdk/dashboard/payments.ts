/**
 * GET /dashboard/api/agents/:id/payments: the agent page's payments list, with filters (kind, host,
 * since, until) and pages. The same query and answer as the platform's GET /api/agents/:id/payments
 * (src/sdk/platform/history.ts, docs/platform-api.md), so the page, `parx payments` and the API list
 * one history alike; only the sign-in differs (the session cookie here).
 */
export {
  PAYMENT_KINDS,
  PAYMENTS_PAGE,
  type Payment,
  type PaymentKind,
  type PaymentsPage,
  type PaymentsQuery,
  paymentsPage as agentPaymentsPage,
  paymentsQuery as agentPaymentsQuery,
} from '../platform/history.js'
