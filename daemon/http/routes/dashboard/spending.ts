import { agentPaymentsQuery, dashboardPaths, idParams } from '../../../../src/sdk/dashboard/index.js'
import { route } from '../../route.js'

/**
 * The agent page's chart and payments list (src/sdk/dashboard/spending.ts, payments.ts): the
 * wallet's own agents only; another wallet's agent answers NOT_FOUND, like one that does not exist.
 */
export const agentSpending = route({
  method: 'GET',
  path: dashboardPaths.agentSpending,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.agentSpending(session.wallet, params.id)),
})

export const agentPayments = route({
  method: 'GET',
  path: dashboardPaths.agentPayments,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  query: agentPaymentsQuery,
  handler: async (c, s, { session, params, query }) => c.json(await s.agentPayments(session.wallet, params.id, query)),
})
