import { microsToUsd, remainingMicros } from '../limits.js'
import type { SpendsLedger } from '../spends.js'
import { policyOf, type AgentRow } from '../store.js'

/**
 * What each budget window still allows the agent, in USD (null: no limit of that kind), for a
 * dry-run verdict. The one place that knows the windows: today the per-payment limit and the
 * rolling day; when hour/week/month windows and user budgets land in limits.ts/spends.ts, only this
 * body changes (keys are window names: perPayment, hour, day, week, month).
 */
export async function remainingByWindow(spends: Pick<SpendsLedger, 'spentToday'>, agent: AgentRow): Promise<Record<string, string | null>> {
  const policy = policyOf(agent)
  const day = remainingMicros(policy, await spends.spentToday(agent.id))
  return { perPayment: policy.perPaymentUsd, day: day === null ? null : microsToUsd(day) }
}
