import {
  type DefaultPolicy,
  NO_RULES,
  type PayeeRules,
  RULE_NAMES,
  type SetDefaultPolicyBody,
  type SetPayeeRulesBody,
} from '../../../src/sdk/platform/policy.js'
import type { AgentRow } from '../../platform/store.js'
import type { Store } from '../../store/store.js'
import type { ScopedRules } from './rules.js'

/**
 * Where the rules live (table platform_payee_rules, migration 640). An agent's `allowHosts` is its
 * limits' `allowed_hosts` column, read and written there, so `allowedHosts` and the policy are one list.
 */
export type PolicyStore = {
  /** The agent's rules and its user's, as pay/send/swap check them (one query). */
  scoped(agent: AgentRow): Promise<ScopedRules>
  agentRules(agent: AgentRow): Promise<PayeeRules>
  userRules(userId: string): Promise<PayeeRules>
  defaultPolicy(userId: string): Promise<DefaultPolicy>
  /**
   * The lists given replace the stored ones (null clears one); `clear` clears all first. Returns the rules as they now
   * are.
   */
  setAgentRules(agent: AgentRow, patch: SetPayeeRulesBody): Promise<PayeeRules>
  setUserRules(userId: string, patch: SetPayeeRulesBody): Promise<PayeeRules>
  setDefaultPolicy(userId: string, patch: SetDefaultPolicyBody): Promise<DefaultPolicy>
  /** Copies the user's default rules into a new agent (creation only: later changes of the default do not reach it). */
  copyDefault(agentId: string, d: DefaultPolicy): Promise<void>
}

type Scope = 'agent' | 'user' | 'default'

const parse = (json: string | undefined): PayeeRules => {
  const stored = json ? (JSON.parse(json) as Partial<PayeeRules>) : {}
  return Object.fromEntries(RULE_NAMES.map((k) => [k, stored[k] ?? null])) as PayeeRules
}

const withAllowedHosts = (rules: PayeeRules, agent: Pick<AgentRow, 'allowed_hosts'>): PayeeRules => ({
  ...rules,
  allowHosts: agent.allowed_hosts === null ? null : (JSON.parse(agent.allowed_hosts) as string[]),
})

function patched(current: PayeeRules, patch: SetPayeeRulesBody): PayeeRules {
  const next = patch.clear ? { ...NO_RULES } : { ...current }
  for (const k of RULE_NAMES) if (patch[k] !== undefined) next[k] = patch[k] as string[] | null
  return next
}

export function policyStore(store: Store): PolicyStore {
  const { db } = store
  const row = (scope: Scope, ownerId: string) =>
    db
      .selectFrom('platform_payee_rules')
      .selectAll()
      .where('scope', '=', scope)
      .where('owner_id', '=', ownerId)
      .executeTakeFirst()
  const put = async (
    scope: Scope,
    ownerId: string,
    rules: PayeeRules,
    limits: { per_payment_usd: string | null; daily_usd: string | null } = { per_payment_usd: null, daily_usd: null },
  ) => {
    const values = { rules: JSON.stringify(rules), ...limits, updated_at: Date.now() }
    await db
      .insertInto('platform_payee_rules')
      .values({ scope, owner_id: ownerId, ...values })
      .onConflict((oc) => oc.columns(['scope', 'owner_id']).doUpdateSet(values))
      .execute()
  }
  const defaultPolicy = async (userId: string): Promise<DefaultPolicy> => {
    const r = await row('default', userId)
    return { rules: parse(r?.rules), perPaymentUsd: r?.per_payment_usd ?? null, dailyUsd: r?.daily_usd ?? null }
  }
  const setAgentRules = async (agent: AgentRow, patch: SetPayeeRulesBody) => {
    const next = patched(withAllowedHosts(parse((await row('agent', agent.id))?.rules), agent), patch)
    await db.transaction().execute(async (tx) => {
      const { allowHosts, ...rest } = next
      await tx
        .updateTable('platform_agents')
        .set({ allowed_hosts: allowHosts === null ? null : JSON.stringify(allowHosts) })
        .where('id', '=', agent.id)
        .execute()
      const values = {
        rules: JSON.stringify({ ...rest, allowHosts: null }),
        per_payment_usd: null,
        daily_usd: null,
        updated_at: Date.now(),
      }
      await tx
        .insertInto('platform_payee_rules')
        .values({ scope: 'agent', owner_id: agent.id, ...values })
        .onConflict((oc) => oc.columns(['scope', 'owner_id']).doUpdateSet(values))
        .execute()
    })
    return next
  }
  return {
    async scoped(agent) {
      const rows = await db
        .selectFrom('platform_payee_rules')
        .select(['scope', 'rules'])
        .where((e) =>
          e.or([
            e.and([e('scope', '=', 'agent'), e('owner_id', '=', agent.id)]),
            e.and([e('scope', '=', 'user'), e('owner_id', '=', agent.user_id)]),
          ]),
        )
        .execute()
      const of = (s: Scope) => rows.find((r) => r.scope === s)?.rules
      return { agent: withAllowedHosts(parse(of('agent')), agent), user: parse(of('user')) }
    },
    agentRules: async (agent) => withAllowedHosts(parse((await row('agent', agent.id))?.rules), agent),
    userRules: async (userId) => parse((await row('user', userId))?.rules),
    defaultPolicy,
    setAgentRules,
    async setUserRules(userId, patch) {
      const next = patched(parse((await row('user', userId))?.rules), patch)
      await put('user', userId, next)
      return next
    },
    async setDefaultPolicy(userId, patch) {
      const cur = await defaultPolicy(userId)
      const rules = patched(cur.rules, patch)
      const perPaymentUsd =
        patch.perPaymentUsd !== undefined ? patch.perPaymentUsd : patch.clear ? null : cur.perPaymentUsd
      const dailyUsd = patch.dailyUsd !== undefined ? patch.dailyUsd : patch.clear ? null : cur.dailyUsd
      await put('default', userId, rules, { per_payment_usd: perPaymentUsd, daily_usd: dailyUsd })
      return { rules, perPaymentUsd, dailyUsd }
    },
    async copyDefault(agentId, d) {
      const { allowHosts, ...rest } = d.rules
      if (allowHosts !== null)
        await db
          .updateTable('platform_agents')
          .set({ allowed_hosts: JSON.stringify(allowHosts) })
          .where('id', '=', agentId)
          .execute()
      if (Object.values(rest).some((v) => v !== null)) await put('agent', agentId, { ...rest, allowHosts: null })
    },
  }
}
