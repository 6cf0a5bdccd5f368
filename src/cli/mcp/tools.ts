import * as agentLimits from '../commands/agent/limits.js'
import * as balance from '../commands/balance.js'
import * as channelsList from '../commands/channels/list.js'
import * as channelsRefund from '../commands/channels/refund.js'
import * as channelsWithdraw from '../commands/channels/withdraw.js'
import * as discover from '../commands/discover.js'
import { historyAgent } from '../commands/history-args.js'
import * as manifest from '../commands/manifest.js'
import * as pay from '../commands/pay.js'
import * as payments from '../commands/payments.js'
import { agentIdOf, needAgent, type PlatformDeps, uuidArg } from '../commands/platform-shared.js'
import * as report from '../commands/report.js'
import * as send from '../commands/send.js'
import * as swap from '../commands/swap.js'
import * as whoami from '../commands/whoami.js'
import { describeError } from '../describe-error.js'
import { usageError } from '../errors.js'

/** What a tool answers: the command's JSON document, or `{ error, code }` flagged as a tool error. */
export type ToolAnswer = { isError?: boolean; content: { type: 'text'; text: string }[] }

type Args = Record<string, unknown>
const str = (a: Args, k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined)
/** An object of string values (pay's headers), or a usage error naming the field. */
function stringRecord(v: unknown, field: string): Record<string, string> | undefined {
  if (v === undefined) return undefined
  if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    throw usageError(`${field} must be an object of header names to string values`)
  }
  return v as Record<string, string>
}

/**
 * The agent's commands as MCP tools: the same run() the CLI calls, with the same credentials.
 * pay keeps its guard rails without a person to ask: a maxAmount, or spending limits set on the agent.
 */
export const agentTools: Record<string, (args: Args, deps: PlatformDeps) => Promise<unknown>> = {
  whoami: async (_a, deps) => (await whoami.run({}, deps)).data,
  balance: async (_a, deps) => (await balance.run({}, deps)).data,
  limits: async (_a, deps) => {
    needAgent(deps, 'limits')
    return (await agentLimits.run({ agent: await agentIdOf(deps) }, deps)).data
  },
  manifest: async (_a, deps) => (await manifest.run({}, deps)).data,
  send: async (a, deps) =>
    (
      await send.run(
        {
          to: str(a, 'to') ?? '',
          amount: str(a, 'amount') ?? '',
          token: str(a, 'token'),
          approvalId: str(a, 'approvalId'),
        },
        deps,
      )
    ).data,
  swap: async (a, deps) =>
    (await swap.run({ from: str(a, 'from') ?? '', to: str(a, 'to') ?? '', amount: str(a, 'amount') ?? '' }, deps)).data,
  discover: async (a, deps) =>
    (
      await discover.run(
        {
          query: str(a, 'query'),
          facilitator: str(a, 'facilitator'),
          network: str(a, 'network'),
          token: str(a, 'token'),
          maxPrice: str(a, 'maxPrice'),
        },
        deps,
      )
    ).data,
  history: async (a, deps) => {
    const receipt = str(a, 'receipt')
    if (receipt !== undefined) return receiptOf(receipt, deps)
    const filter = { since: str(a, 'since'), until: str(a, 'until'), kind: str(a, 'kind'), host: str(a, 'host') }
    if (a.report === true) return (await report.run(filter, deps)).data
    return (
      await payments.run(
        { ...filter, limit: typeof a.limit === 'number' ? String(a.limit) : undefined, cursor: str(a, 'cursor') },
        deps,
      )
    ).data
  },
  channels: async (_a, deps) => (await channelsList.run({}, deps)).data,
  refund_channel: async (a, deps) => (await channelsRefund.run({ channel: str(a, 'channel') ?? '' }, deps)).data,
  withdraw_channel: async (a, deps) => (await channelsWithdraw.run({ channel: str(a, 'channel') ?? '' }, deps)).data,
  pay: async (a, deps) => {
    const maxAmount = str(a, 'maxAmount')
    const dryRun = a.dryRun === true
    if (!dryRun && maxAmount === undefined) {
      // No person confirms here: without a cap of its own, the agent's limits must be the cap.
      needAgent(deps, 'pay')
      const limits = await deps.platform.getLimits({ params: { id: await agentIdOf(deps) } })
      // Any per-payment limit or window, the agent's or its user's, caps it; none at all is what mayStillSpendUsd null
      // says.
      if (limits.mayStillSpendUsd === null) {
        throw usageError(
          'pay needs maxAmount: neither this agent nor its user has a ' +
            'per-payment limit or a budget to cap what a payment may cost (set ' +
            'one with `parx agent limits` or `parx user limits`, or pass maxAmount)',
        )
      }
    }
    const request = { method: str(a, 'method'), headers: stringRecord(a.headers, 'headers'), body: str(a, 'body') }
    return (
      await pay.run(
        {
          url: str(a, 'url') ?? '',
          max: maxAmount,
          protocol: str(a, 'protocol'),
          scheme: str(a, 'scheme'),
          dryRun,
          yes: true,
          via: 'mcp',
          approvalId: str(a, 'approvalId'),
          ...request,
        },
        deps,
      )
    ).data
  },
  approvals: async (_a, deps) => {
    needAgent(deps, 'approvals')
    return deps.platform.listAgentApprovals({ params: { id: await agentIdOf(deps) } })
  },
}

/** One payment's signed receipt (each history row says whether it has one), for the agent to keep or show. */
async function receiptOf(paymentId: string, deps: PlatformDeps): Promise<unknown> {
  const id = uuidArg(paymentId, 'receipt')
  const agent = await historyAgent({}, deps)
  return deps.platform.showReceipt({ params: { id: agent, paymentId: id } })
}

/** Runs one tool; every failure becomes an MCP tool error carrying the CLI's `{ error, code }`. */
export async function callTool(name: string, args: Args, deps: () => Promise<PlatformDeps>): Promise<ToolAnswer> {
  try {
    const tool = agentTools[name]
    if (!tool) throw usageError(`no tool ${name}`)
    const data = await tool(args, await deps())
    return { content: [{ type: 'text', text: JSON.stringify(data) }] }
  } catch (e) {
    // The service's fields stay (APPROVAL_REQUIRED's approvalId): the agent branches on them.
    const { code, message, fields } = describeError(e)
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ ...fields, error: message, code }) }] }
  }
}
