import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'
import { PAY_METHODS } from '../../sdk/platform/pay.js'
import { platformDeps } from '../commands/platform-shared.js'
import { type CliIo, createContext } from '../context.js'
import { callTool } from './tools.js'

const amount = z.string().describe('a decimal amount as a string, e.g. "1.5"')

/** Each tool: what it does and its input, as the MCP client sees them. */
const tools = {
  whoami: { description: 'The agent this key belongs to: id, network, wallet, tokens and spending limits.', input: {} },
  balance: { description: "The agent wallet's token balances.", input: {} },
  limits: {
    description:
      'What this agent may still spend: its per-payment limit and, per rolling window ' +
      '(hour, day, week, 30-day month), the limit, what counts and what is left, ' +
      "for the agent and for its user across all the user's " +
      'agents; mayStillSpendUsd is the most one payment may be now.',
    input: {},
  },
  manifest: {
    description: 'What the platform offers: networks, tokens, payment protocols, limits, agent routes.',
    input: {},
  },
  pay: {
    description:
      'Pay for an HTTP call to a 402-gated URL: the platform sends the request (method, headers, body), ' +
      "reads the seller's price, pays it (x402 or MPP) and returns the seller's answer and a receipt. " +
      'maxAmount caps the price; it is required unless the agent or its user has a per-payment limit ' +
      'or a budget. dryRun pays nothing and answers a verdict: wouldPay, refusedBy (the rule, its ' +
      "scope and value) or null, approvalRequired (above the agent's approval threshold: the user " +
      'would be asked first), the offer it would take, and what each budget window still allows. ' +
      "Above the agent's approval threshold it answers APPROVAL_REQUIRED with an approvalId and signs " +
      'nothing: tell the user, and once approved call pay again with the same arguments plus approvalId.',
    input: {
      url: z.string().describe('the seller URL (http or https)'),
      method: z.enum(PAY_METHODS).optional().describe('the HTTP method; default GET, or POST when a body is given'),
      headers: z
        .record(z.string())
        .optional()
        .describe(
          'request headers, e.g. {"content-type": "application/json"}; ' +
            'payment, auth and connection headers are refused',
        ),
      body: z
        .string()
        .optional()
        .describe('the request body, as text (set its content-type in headers); not allowed with GET'),
      maxAmount: amount.optional().describe('refuse when the seller asks more than this, in its token'),
      protocol: z
        .enum(['x402', 'mpp'])
        .optional()
        .describe('pay only with this protocol; default x402 when offered, else MPP'),
      scheme: z
        .enum(['exact', 'auth-capture'])
        .optional()
        .describe(
          'x402 only with this scheme: auth-capture holds the price and the seller captures ' +
            'what it served (the rest, or all of it on a failed call, comes back; refundable), ' +
            'exact pays the price at once; default auth-capture when the seller offers it',
        ),
      dryRun: z
        .boolean()
        .optional()
        .describe(
          'pay nothing: answer whether this agent would pay now (wouldPay), which ' +
            'rule would refuse (refusedBy), whether the user would be asked to approve ' +
            'it first (approvalRequired), the offer and the remaining budget per window',
        ),
      approvalId: z
        .string()
        .optional()
        .describe(
          'the approvalId an earlier APPROVAL_REQUIRED gave, once ' +
            'the user approved it; the other arguments must be the same',
        ),
    },
  },
  approvals: {
    description:
      "This agent's pays and sends waiting for the user's approval (above " +
      'its approval threshold), with their approvalId, amount and expiry.',
    input: {},
  },
  send: {
    description:
      'Send tokens from the agent wallet (gasless on Base; direct on Radius and Tempo). Counts toward the limits. ' +
      "Above the agent's approval threshold it answers APPROVAL_REQUIRED " +
      'with an approvalId and signs nothing: tell the user, and once approved ' +
      'call send again with the same to, amount and token plus approvalId.',
    input: {
      to: z.string().describe('recipient EVM address'),
      amount,
      token: z.string().optional().describe('token symbol; default TOKEN_A'),
      approvalId: z
        .string()
        .optional()
        .describe(
          'the approvalId an earlier APPROVAL_REQUIRED gave, once ' +
            'the user approved it; to, amount and token must be the same',
        ),
    },
  },
  swap: {
    description:
      'Swap in the agent wallet on Base: USDC->TOKEN_A, TOKEN_A->TOKEN_B, TOKEN_B->TOKEN_A. Counts toward the limits.',
    input: { from: z.string().describe('token to sell'), to: z.string().describe('token to buy'), amount },
  },
  discover: {
    description:
      "Search a facilitator's bazaar for paid HTTP services: name, URL, price, network, " +
      'token, description, and whether this agent can pay each (its network and tokens). ' +
      "Default: the platform's own facilitator; facilitator: any x402 facilitator's URL.",
    input: {
      query: z.string().optional().describe('words that must all appear in the URL, description, name or tags'),
      facilitator: z
        .string()
        .optional()
        .describe("an x402 facilitator's URL (its /discovery/resources listing is read)"),
      network: z.string().optional().describe('only offers on this network, e.g. local-base or eip155:8453'),
      token: z.string().optional().describe('only offers in this token symbol'),
      maxPrice: amount.optional().describe('only offers at most this price, in the token'),
    },
  },
  channels: {
    description:
      "The agent's x402 batch-settlement channels (pay opens one when a seller " +
      'offers batch-settlement: one deposit, then vouchers with no transaction): ' +
      'per seller, what was deposited, charged, refunded and withdrawn, what is unspent, and any withdrawal under way.',
    input: {},
  },
  refund_channel: {
    description:
      "Ask a channel's seller to refund the unspent deposit to the agent's " +
      'wallet (cooperative refund); the amount returned is read from the chain.',
    input: { channel: z.string().describe('the channel id (0x and 64 hex digits), as the channels tool lists it') },
  },
  withdraw_channel: {
    description:
      "Take a channel's deposit back without the seller (when refund_channel is refused): " +
      'the first call starts the on-chain withdrawal of what the seller has not claimed ' +
      "and stops payments on the channel; a call after the channel's delay (finalizableAt) " +
      'finalizes it and returns the amount less what the seller claimed meanwhile. ' +
      'Before then it answers CHANNEL_WITHDRAW_PENDING.',
    input: { channel: z.string().describe('the channel id (0x and 64 hex digits), as the channels tool lists it') },
  },
  history: {
    description:
      "The agent's pays, sends and swaps, newest first, one page at a time (pass nextCursor as cursor for the next); " +
      'an auth-capture pay has hold: what was held, what is still held, ' +
      'captured, voided, refunded and reclaimed, with its deadlines; ' +
      'with report: true, the totals per day, host, token and kind ' +
      'over the window instead, with the limits and what today used. ' +
      "Each settled pay has receipt: true; pass its id as receipt to get the platform's " +
      'signed receipt of it (EIP-712, verifiable offline with `parx receipt verify`).',
    input: {
      since: z.string().optional().describe('from this ISO date or time, or a span back from now such as 7d or 24h'),
      until: z.string().optional().describe('before this ISO date or time'),
      kind: z.enum(['pay', 'send', 'swap']).optional(),
      host: z.string().optional().describe('pays to this seller host only'),
      limit: z.number().int().min(1).max(200).optional().describe('payments per page (default 50)'),
      cursor: z.string().optional().describe('nextCursor of the page before'),
      report: z.boolean().optional().describe('totals instead of the list'),
      receipt: z
        .string()
        .optional()
        .describe("a payment id (a row with receipt: true): that payment's signed receipt instead of the list"),
    },
  },
} as const

/**
 * `parx mcp`: the agent's commands as Model Context Protocol tools over stdio. stdout is the
 * protocol channel, so every message the commands would print goes to stderr. Credentials are
 * read per call (a login in another shell applies at once).
 */
export async function serveMcp(io: CliIo, opts: { version: string; apiUrl?: string }): Promise<void> {
  const quiet: CliIo = { env: io.env, stdout: io.stderr, stderr: io.stderr }
  const server = new McpServer({ name: 'parx', version: opts.version })
  for (const [name, t] of Object.entries(tools)) {
    server.registerTool(name, { description: t.description, inputSchema: t.input }, (args: Record<string, unknown>) =>
      callTool(name, args ?? {}, () => platformDeps(createContext(quiet, { output: 'json', apiUrl: opts.apiUrl }))),
    )
  }
  const transport = new StdioServerTransport()
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve))
  await server.connect(transport)
  await closed
}
