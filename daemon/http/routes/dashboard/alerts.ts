import { dashboardPaths, idParams } from '../../../../src/sdk/dashboard/index.js'
import { createAlertRuleBody } from '../../../../src/sdk/platform/alerts.js'
import { route } from '../../route.js'

/**
 * The Alerts view (daemon/dashboard/alerts.ts): rules and fired alerts, add and remove, with the platform's own schema.
 */
export const alertsView = route({
  method: 'GET',
  path: dashboardPaths.alerts,
  auth: 'session',
  surface: 'dashboard',
  handler: async (c, s, { session }) => c.json(await s.alerts.view(session.wallet)),
})

export const alertsAdd = route({
  method: 'POST',
  path: dashboardPaths.alerts,
  auth: 'session',
  surface: 'dashboard',
  body: createAlertRuleBody,
  maxBody: 4096,
  handler: async (c, s, { session, body }) => c.json(await s.alerts.add(session.wallet, body)),
})

export const alertsRemove = route({
  method: 'DELETE',
  path: dashboardPaths.alertRule,
  auth: 'session',
  surface: 'dashboard',
  params: idParams,
  handler: async (c, s, { session, params }) => c.json(await s.alerts.remove(session.wallet, params.id)),
})
