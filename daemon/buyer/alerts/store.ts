import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import { BaseError } from '../../../src/errors/index.js'
import type { AlertRule, AlertRuleSettings, FiredAlert } from '../../../src/sdk/platform/alerts.js'
import type { Store } from '../../store/store.js'
import type { PlatformAlertRulesTable, PlatformAlertsTable } from '../../store/tables/alerts.js'

export type AlertRuleRow = Selectable<PlatformAlertRulesTable>
export type FiredAlertRow = Selectable<PlatformAlertsTable>

/** How many rules one user may keep: each is evaluated on every spend of its agents. */
export const MAX_ALERT_RULES = 50

const iso = (t: number | string) => new Date(Number(t)).toISOString()

/** A rule's settings with `of` resolved: an agent's own budget when the rule names an agent, the user's otherwise. */
export function resolved(s: AlertRuleSettings): AlertRuleSettings {
  if (s.kind === 'budget') return { ...s, of: s.of ?? (s.agentId ? 'agent' : 'user') }
  if (s.kind === 'new_payee') return { ...s, of: s.of ?? 'agent' }
  return s
}

export const ruleView = (r: AlertRuleRow): AlertRule =>
  ({
    ...(JSON.parse(r.params) as object),
    kind: r.kind,
    id: r.id,
    agentId: r.agent_id,
    createdAt: iso(r.created_at),
  }) as AlertRule

export const alertView = (r: FiredAlertRow): FiredAlert => ({
  id: r.id,
  ruleId: r.rule_id,
  kind: r.kind,
  agentId: r.agent_id,
  firedAt: iso(r.created_at),
  message: r.message,
  figures: JSON.parse(r.figures) as FiredAlert['figures'],
})

/** Alert rules and the alerts they fired (tables of migration 680). */
export type AlertStore = {
  rules(userId: string): Promise<AlertRuleRow[]>
  /** QUOTA_EXCEEDED past MAX_ALERT_RULES. The agent, when named, is the caller's (checked by the route). */
  add(userId: string, s: AlertRuleSettings, now?: number): Promise<AlertRuleRow>
  /** NOT_FOUND when the user has no such rule. */
  remove(userId: string, id: string): Promise<void>
  history(userId: string, q: { agentId?: string; limit: number }): Promise<FiredAlertRow[]>
}

export function alertStore(store: Store): AlertStore {
  const { db } = store
  const rules = (userId: string) =>
    db
      .selectFrom('platform_alert_rules')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  return {
    rules,
    async add(userId, s, now = Date.now()) {
      if ((await rules(userId)).length >= MAX_ALERT_RULES) {
        throw new BaseError(
          'QUOTA_EXCEEDED',
          `a user keeps at most ${MAX_ALERT_RULES} alert rules; remove one first (parx alerts remove <id>)`,
        )
      }
      const { kind, agentId, ...params } = resolved(s)
      const row: AlertRuleRow = {
        id: randomUUID(),
        user_id: userId,
        agent_id: agentId ?? null,
        kind,
        params: JSON.stringify(params),
        created_at: now,
      }
      await db.insertInto('platform_alert_rules').values(row).execute()
      return row
    },
    async remove(userId, id) {
      const r = await db
        .deleteFrom('platform_alert_rules')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst()
      if (Number(r.numDeletedRows) === 0) throw new BaseError('NOT_FOUND', `no alert rule ${id} for this key`)
    },
    history(userId, q) {
      let s = db.selectFrom('platform_alerts').selectAll().where('user_id', '=', userId)
      if (q.agentId) s = s.where('agent_id', '=', q.agentId)
      return s.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute()
    },
  }
}
