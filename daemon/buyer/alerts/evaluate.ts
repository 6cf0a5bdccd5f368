import type { Kysely } from 'kysely'
import type { AlertRule } from '../../../src/sdk/platform/alerts.js'
import type { AgentRow, UserRow } from '../../platform/store.js'
import type { Database } from '../../store/database.js'
import { agentBudget, userBudget } from '../budget-store.js'
import { WINDOW_FIELD, WINDOW_MS } from '../budgets.js'
import { microsToUsd, USD_DECIMALS, usdMicros } from '../limits.js'
import type { SpendRow } from '../spends.js'
import { averageMicros, budgetCrossed, factorMilli, paymentAbove, rateCrossed } from './crossing.js'
import { paidHostBefore, rateFigures, windowBefore } from './ledger-reads.js'

/** An alert to fire: `dedupeKey` names its crossing, so it is stored (and delivered) once however often it is found. */
export type Firing = {
  rule: AlertRule
  agentId: string | null
  dedupeKey: string
  figures: Record<string, string | number | null>
  message: string
}

const usd = (m: bigint) => microsToUsd(m)
const micros = (v: string) => usdMicros(v, USD_DECIMALS)

/**
 * The alerts one recorded spend fires, among the rules that watch its agent (the caller filters
 * them). Reads only what the rules present need; each figure is computed over what is ordered
 * before the spend (./ledger-reads.ts), so the result does not depend on when it runs.
 */
export async function spendFirings(
  db: Kysely<Database>,
  rules: AlertRule[],
  agent: AgentRow,
  user: UserRow,
  s: SpendRow,
): Promise<Firing[]> {
  const amount = BigInt(s.amount_micros)
  const out: Firing[] = []
  const name = agent.name ? `${agent.name} (${agent.id})` : agent.id
  for (const rule of rules) {
    const key = (subject: string, what: string) => `${rule.id}:${subject}:${what}`
    if (rule.kind === 'budget') {
      const mine = rule.of === 'agent'
      const limit = (mine ? agentBudget(agent) : userBudget(user))[WINDOW_FIELD[rule.window]]
      if (limit === null) continue
      const before = await windowBefore(
        db,
        mine ? { agentId: agent.id } : { userId: user.id },
        WINDOW_MS[rule.window],
        s,
      )
      const after = before + amount
      if (
        !budgetCrossed({ beforeMicros: before, afterMicros: after, limitMicros: micros(limit), percent: rule.percent })
      )
        continue
      const whose = mine ? `agent ${name}'s` : "the user's (all agents)"
      out.push({
        rule,
        agentId: mine ? agent.id : null,
        dedupeKey: key(mine ? agent.id : user.id, s.id),
        figures: {
          window: rule.window,
          of: rule.of,
          percent: rule.percent,
          limitUsd: limit,
          spentUsd: usd(after),
          paymentId: s.id,
          byAgentId: agent.id,
        },
        message:
          `${whose} ${rule.window} budget crossed ${rule.percent}%: ` +
          `${usd(after)} of ${limit} USD spent in the rolling ${rule.window}`,
      })
    } else if (rule.kind === 'payment_above') {
      if (!paymentAbove(amount, micros(rule.usd))) continue
      const payee = s.host ?? s.recipient
      out.push({
        rule,
        agentId: agent.id,
        dedupeKey: key(agent.id, s.id),
        figures: {
          thresholdUsd: rule.usd,
          amountUsd: usd(amount),
          amount: s.amount,
          token: s.token,
          spend: s.kind,
          payee,
          paymentId: s.id,
        },
        message:
          `agent ${name} made a ${s.kind} of ${usd(amount)} ` +
          `USD${payee ? ` to ${payee}` : ''}, above ${rule.usd} USD`,
      })
    } else if (rule.kind === 'new_payee') {
      if (s.kind !== 'pay' || !s.host) continue
      const mine = rule.of === 'agent'
      if (await paidHostBefore(db, mine ? { agentId: agent.id } : { userId: user.id }, s.host, s)) continue
      out.push({
        rule,
        agentId: agent.id,
        dedupeKey: key(mine ? agent.id : user.id, `host:${s.host}`),
        figures: { host: s.host, of: rule.of, amountUsd: usd(amount), paymentId: s.id },
        message:
          `agent ${name} paid ${s.host} for the first ` +
          `time${mine ? '' : ' among all your agents'} (${usd(amount)} USD)`,
      })
    } else if (rule.kind === 'spend_rate') {
      const { beforeMicros, baselineMicros } = await rateFigures(db, agent.id, WINDOW_MS[rule.period], s)
      const after = beforeMicros + amount
      if (
        !rateCrossed({
          beforeMicros,
          afterMicros: after,
          baselineMicros,
          period: rule.period,
          factorMilli: factorMilli(rule.factor),
        })
      )
        continue
      const avg = usd(averageMicros(baselineMicros, rule.period))
      out.push({
        rule,
        agentId: agent.id,
        dedupeKey: key(agent.id, s.id),
        figures: { period: rule.period, factor: rule.factor, spentUsd: usd(after), averageUsd: avg, paymentId: s.id },
        message:
          `agent ${name} spent ${usd(after)} USD in the last ${rule.period}, above ` +
          `${rule.factor} times its 7-day average of ${avg} USD per ${rule.period}`,
      })
    }
  }
  return out
}
