import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { alertView, ruleView } from '../../../buyer/alerts/store.js'
import { platformRoute } from './contract-route.js'

/** Alert rules and the alerts they fired (daemon/buyer/alerts/); the owning user's key only. */
export const listAlertRules = platformRoute(platformRoutes.listAlertRules, async (c, s, { caller }) => {
  const userId = s.userOf(caller)
  return c.json({ rules: (await s.alerts.store.rules(userId)).map(ruleView) })
})

export const createAlertRule = platformRoute(platformRoutes.createAlertRule, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  if (body.agentId) await s.ownedAgent(caller, body.agentId)
  const row = await s.owner.addAlertRule(userId, body)
  return c.json(ruleView(row))
})

export const deleteAlertRule = platformRoute(platformRoutes.deleteAlertRule, async (c, s, { params, caller }) => {
  await s.alerts.remove(s.userOf(caller), params.ruleId)
  return c.json({ id: params.ruleId, deleted: true as const })
})

export const listAlertHistory = platformRoute(platformRoutes.listAlertHistory, async (c, s, { query, caller }) => {
  const userId = s.userOf(caller)
  return c.json({ alerts: (await s.alerts.store.history(userId, query)).map(alertView) })
})
