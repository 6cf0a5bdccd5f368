import { BaseError } from '../../../src/errors/index.js'
import type { ChosenOffer, PayDryRun } from '../../../src/sdk/platform/pay.js'
import type { RefusedBy } from '../../../src/sdk/platform/policy.js'
import { checkSpend } from '../limits.js'
import type { SpendsLedger } from '../spends.js'
import { policyOf, type AgentRow } from '../store.js'
import { remainingUsd } from './remaining.js'
import type { Refusal } from './rules.js'

/**
 * A dry run's answer (pay --dry-run, MCP pay with dryRun): whether the agent would pay `offer` now.
 * `ruleRefusal` is what the payee and network rules said; when they allow it, the limits are asked
 * the same way reserve would (without reserving), and a limit that refuses is named as the rule.
 */
export async function dryRunVerdict(
  spends: Pick<SpendsLedger, 'budget'>, agent: AgentRow,
  x: { offer: ChosenOffer | null; ruleRefusal: Refusal | null; amountMicros?: bigint; host?: string },
): Promise<PayDryRun> {
  let refusedBy: RefusedBy | null = x.ruleRefusal
  const state = await spends.budget(agent.id)
  if (!refusedBy && x.amountMicros !== undefined) {
    try {
      checkSpend(state, policyOf(agent).allowedHosts, { amountMicros: x.amountMicros, host: x.host })
    } catch (e) {
      if (!(e instanceof BaseError) || e.code !== 'LIMIT_EXCEEDED') throw e
      const f = (e.fields ?? {}) as { limit?: string; scope?: 'agent' | 'user'; limitUsd?: string | null }
      refusedBy = { rule: f.limit ?? 'limit', scope: f.scope ?? 'agent', value: f.limitUsd ?? null, message: e.message }
    }
  }
  const remaining = remainingUsd(state)
  const { scheme: _scheme, ...price } = x.offer ?? { scheme: '' }
  return {
    dryRun: true, wouldPay: refusedBy === null, refusedBy: refusedBy && { rule: refusedBy.rule, scope: refusedBy.scope, value: refusedBy.value, message: refusedBy.message },
    offer: x.offer, remaining, price: x.offer ? (price as PayDryRun['price']) : null, withinLimits: refusedBy === null, remainingTodayUsd: remaining.day ?? null,
  }
}
