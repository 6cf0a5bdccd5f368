import { BaseError } from '../../../src/errors/index.js'
import type { ChosenOffer, PayDryRun } from '../../../src/sdk/platform/pay.js'
import type { RefusedBy } from '../../../src/sdk/platform/policy.js'
import { type AgentRow, policyOf } from '../../platform/store.js'
import { needsApproval } from '../approvals/gate.js'
import { checkSpend } from '../limits.js'
import type { SpendsLedger } from '../spends.js'
import { remainingUsd } from './remaining.js'
import type { Refusal } from './rules.js'

/**
 * A dry run's answer (pay --dry-run, MCP pay with dryRun): whether the agent would pay `offer` now.
 * `ruleRefusal` is what the payee and network rules said; when they allow it, the limits are asked
 * the same way reserve would (without reserving), and a limit that refuses is named as the rule.
 * `approvals`: whether this deployment asks approvals (pay's deps); then a price above the agent's
 * `approveAboveUsd` is said to be held for the owner (approvalRequired), and wouldPay is false: the
 * pay would answer APPROVAL_REQUIRED, not pay. A refusal still shows beside it: it is what the pay
 * meets once approved.
 */
export async function dryRunVerdict(
  spends: Pick<SpendsLedger, 'budget'>,
  agent: AgentRow,
  x: {
    offer: ChosenOffer | null
    ruleRefusal: Refusal | null
    amountMicros?: bigint
    host?: string
    approvals?: boolean
  },
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
  const approvalRequired = x.approvals === true && x.amountMicros !== undefined && needsApproval(agent, x.amountMicros)
  const remaining = remainingUsd(state)
  const { scheme: _scheme, ...price } = x.offer ?? { scheme: '' }
  return {
    dryRun: true,
    wouldPay: refusedBy === null && !approvalRequired,
    approvalRequired,
    approveAboveUsd: agent.approve_above_usd ?? null,
    refusedBy: refusedBy && {
      rule: refusedBy.rule,
      scope: refusedBy.scope,
      value: refusedBy.value,
      message: refusedBy.message,
    },
    offer: x.offer,
    remaining,
    price: x.offer ? (price as PayDryRun['price']) : null,
    withinLimits: refusedBy === null,
    remainingTodayUsd: remaining.day ?? null,
  }
}
