import type { AlertRuleSettings } from '../../src/sdk/platform/alerts.js'
import { alertView, ruleView } from '../buyer/alerts/store.js'
import type { PlatformService } from '../platform/service.js'
import type { UserRow } from '../platform/store.js'

/** How many fired alerts the dashboard's Alerts view shows (the newest). */
const SHOWN = 50

/**
 * The Alerts view's calls for the signed-in wallet's platform user: its rules and the newest
 * alerts in one answer, add and remove. The same store and checks as /api/alerts (daemon/buyer/alerts/).
 */
export function dashboardAlerts(platform: PlatformService, userOf: (wallet: string) => Promise<UserRow>) {
  return {
    async view(wallet: string) {
      const user = await userOf(wallet)
      const [rules, history] = await Promise.all([
        platform.alerts.store.rules(user.id),
        platform.alerts.store.history(user.id, { limit: SHOWN }),
      ])
      return { rules: rules.map(ruleView), alerts: history.map(alertView) }
    },
    async add(wallet: string, body: AlertRuleSettings) {
      const user = await userOf(wallet)
      if (body.agentId) await platform.ownedAgent({ kind: 'user', userId: user.id }, body.agentId)
      return ruleView(await platform.alerts.add(user.id, body))
    },
    async remove(wallet: string, id: string) {
      await platform.alerts.remove((await userOf(wallet)).id, id)
      return { id, deleted: true as const }
    },
  }
}
