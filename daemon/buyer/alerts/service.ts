import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { BaseError } from '../../../src/errors/index.js'
import { type AlertRule, type AlertRuleSettings, COUNTED_REFUSALS } from '../../../src/sdk/platform/alerts.js'
import type { AgentRow } from '../../platform/store.js'
import type { EndpointStore } from '../../seller/endpoints.js'
import type { WebhookDelivery } from '../../seller/webhooks/deliver.js'
import type { Store } from '../../store/store.js'
import { WINDOW_MS } from '../budgets.js'
import { refusalsCrossed } from './crossing.js'
import { type Firing, spendFirings } from './evaluate.js'
import { fire } from './fire.js'
import { spendsSince } from './ledger-reads.js'
import { type AlertRuleRow, type AlertStore, alertStore, type FiredAlertRow, ruleView } from './store.js'

/**
 * How long a replica trusts the rules it read for a user: the pay path then costs no round trip
 * for a user without rules (nor with them) more than once a second. The replica that changes a
 * rule forgets its copy at once; another replica sees the change within this time.
 */
export const ALERT_RULES_TTL_MS = 1_000
const CACHED_USERS = 10_000

export type Alerts = {
  store: AlertStore
  add(userId: string, s: AlertRuleSettings): Promise<AlertRuleRow>
  remove(userId: string, id: string): Promise<void>
  /**
   * Runs one pay, send or swap of the agent and evaluates the user's rules on what it did, before
   * its answer goes back: the spends it recorded (budget, payment_above, new_payee, spend_rate)
   * or, when it was refused, the refusal (refusals). Alerts fired are stored with their webhook
   * deliveries in one transaction. With no rule watching the agent nothing is read or written.
   * An evaluation that fails is logged and never changes the answer.
   */
  watch<T>(agent: AgentRow, spend: () => Promise<T>): Promise<T>
}

export type AlertsParameters = {
  store: Store
  endpoints: EndpointStore
  delivery: Pick<WebhookDelivery, 'poke'>
  log: Logger
  ttlMs?: number
}

const watches = (agent: AgentRow) => (r: AlertRule) => r.agentId === null || r.agentId === agent.id

export function alertsService(p: AlertsParameters): Alerts {
  const { db } = p.store
  const store = alertStore(p.store)
  const cache = new Map<string, { rules: AlertRule[]; until: number }>()
  const rulesOf = async (userId: string): Promise<AlertRule[]> => {
    const hit = cache.get(userId)
    if (hit && hit.until > Date.now()) return hit.rules
    const rules = (await store.rules(userId)).map(ruleView)
    if (cache.size >= CACHED_USERS) cache.clear()
    cache.set(userId, { rules, until: Date.now() + (p.ttlMs ?? ALERT_RULES_TTL_MS) })
    return rules
  }
  const delivered = (fired: FiredAlertRow[]) => {
    if (fired.length) void p.delivery.poke()
    for (const a of fired) p.log.info({ alert: a.id, rule: a.rule_id, kind: a.kind, agent: a.agent_id }, 'alert fired')
  }

  const afterSpends = async (agent: AgentRow, since: number, rules: AlertRule[]) => {
    const spends = await spendsSince(db, agent.id, since)
    if (!spends.length) return
    const a = await db.selectFrom('platform_agents').selectAll().where('id', '=', agent.id).executeTakeFirstOrThrow()
    const u = await db
      .selectFrom('platform_users')
      .selectAll()
      .where('id', '=', agent.user_id)
      .executeTakeFirstOrThrow()
    const firings: Firing[] = []
    for (const s of spends) firings.push(...(await spendFirings(db, rules, a, u, s)))
    if (!firings.length) return
    const endpoints = await p.endpoints.list(agent.user_id)
    delivered(await db.transaction().execute((tx) => fire(tx, p.store, { userId: agent.user_id, firings, endpoints })))
  }

  /**
   * A refusal is written and counted in one transaction holding the agent's row (PostgreSQL: FOR
   * UPDATE; SQLite: its one writer), so an agent's refusals are counted one after the other on
   * every replica and exactly one of them reaches the rule's count.
   */
  const afterRefusal = async (agent: AgentRow, code: string, rules: Extract<AlertRule, { kind: 'refusals' }>[]) => {
    const endpoints = await p.endpoints.list(agent.user_id)
    const fired = await db.transaction().execute(async (tx) => {
      let lock = tx.selectFrom('platform_agents').select('id').where('id', '=', agent.id)
      if (p.store.dialect === 'postgres') lock = lock.forUpdate()
      await lock.execute()
      const now = Date.now()
      const id = randomUUID()
      await tx.insertInto('platform_alert_refusals').values({ id, agent_id: agent.id, code, created_at: now }).execute()
      // Nothing older than the longest window a rule may have (7 days) is ever counted again.
      await tx
        .deleteFrom('platform_alert_refusals')
        .where('agent_id', '=', agent.id)
        .where('created_at', '<=', now - WINDOW_MS.week)
        .execute()
      const firings: Firing[] = []
      for (const rule of rules) {
        const r = await tx
          .selectFrom('platform_alert_refusals')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('agent_id', '=', agent.id)
          .where('created_at', '>', now - rule.withinMinutes * 60_000)
          .executeTakeFirstOrThrow()
        const n = Number(r.n)
        if (!refusalsCrossed(n, rule.count)) continue
        firings.push({
          rule,
          agentId: agent.id,
          dedupeKey: `${rule.id}:${agent.id}:${id}`,
          figures: { count: n, withinMinutes: rule.withinMinutes, lastCode: code },
          message:
            `agent ${agent.name ? `${agent.name} (${agent.id})` : agent.id} was ` +
            `refused ${n} times within ${rule.withinMinutes} minutes (last: ${code})`,
        })
      }
      return fire(tx, p.store, { userId: agent.user_id, firings, endpoints, now })
    })
    delivered(fired)
  }

  const guard = (what: string, f: Promise<void>) =>
    f.catch((e: unknown) => p.log.warn({ err: e }, `alert evaluation after ${what} failed`))

  return {
    store,
    async add(userId, s) {
      // A user's budget and a payee new to all its agents are about every agent at once: one agent cannot narrow them.
      if (s.agentId && 'of' in s && s.of === 'user') {
        throw new BaseError(
          'BAD_REQUEST',
          `a ${s.kind} rule with of "user" watches all your agents together; leave agentId out, or use of "agent"`,
        )
      }
      const row = await store.add(userId, s)
      cache.delete(userId)
      return row
    },
    async remove(userId, id) {
      await store.remove(userId, id)
      cache.delete(userId)
    },
    async watch(agent, spend) {
      const rules = (await rulesOf(agent.user_id)).filter(watches(agent))
      if (!rules.length) return spend()
      const onSpend = rules.filter((r) => r.kind !== 'refusals')
      const onRefusal = rules.filter((r) => r.kind === 'refusals')
      const since = Date.now()
      try {
        return await spend()
      } catch (e) {
        if (onRefusal.length && e instanceof BaseError && (COUNTED_REFUSALS as readonly string[]).includes(e.code))
          await guard('a refusal', afterRefusal(agent, e.code, onRefusal))
        throw e
      } finally {
        // Also after a failure: a pay refused by its seller may hold a signed spend that counts.
        if (onSpend.length) await guard('a spend', afterSpends(agent, since, onSpend))
      }
    },
  }
}
