import { getAddress, isAddress } from 'viem'
import { z } from 'zod'
import { hostName, usdAmount } from './fields.js'

/**
 * Payee and network rules (issue 41 item 2): allow- and deny-lists of seller hosts, payTo
 * addresses, networks and tokens, per agent and per user. A list left null is not set. Deny wins
 * over allow; an allow-list that is set (even empty) and does not match refuses. The user's rules
 * apply to all its agents beside each agent's own. An agent's `allowHosts` is the same list as its
 * limits' `allowedHosts`.
 */

const MAX_ENTRIES = 100

/**
 * `0x…` (40 hex, any case, kept checksummed; compared case-insensitively) or a Solana base58 address (compared
 * exactly).
 */
export const payToEntry = z
  .string()
  .trim()
  .refine(
    (v) => isAddress(v, { strict: false }) || /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(v),
    'must be an EVM address (0x + 40 hex) or a Solana address (base58)',
  )
  .transform((v) => (v.startsWith('0x') ? getAddress(v) : v))

/** A parx network name (`base`, `local-base`) or a CAIP-2 id (`eip155:8453`). */
export const networkEntry = z
  .string()
  .trim()
  .refine(
    (v) => /^[a-z0-9-]{2,32}$/.test(v) || /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,64}$/.test(v),
    'must be a network name like base or a CAIP-2 id like eip155:8453',
  )

/** A token symbol (case-insensitive, kept upper case) or a token contract address (checksummed). */
export const tokenEntry = z
  .string()
  .trim()
  .refine(
    (v) => /^[A-Za-z][A-Za-z0-9]{1,15}$/.test(v) || isAddress(v, { strict: false }),
    'must be a token symbol like USDC or a token address (0x + 40 hex)',
  )
  .transform((v) => (v.startsWith('0x') ? getAddress(v) : v.toUpperCase()))

const list = <T extends z.ZodTypeAny>(entry: T) =>
  z.array(entry).max(MAX_ENTRIES, `at most ${MAX_ENTRIES} entries`).nullable()

/** The eight lists; each null (not set) or a list. */
export const payeeRules = z.object({
  allowHosts: list(hostName),
  denyHosts: list(hostName),
  allowPayTo: list(payToEntry),
  denyPayTo: list(payToEntry),
  allowNetworks: list(networkEntry),
  denyNetworks: list(networkEntry),
  allowTokens: list(tokenEntry),
  denyTokens: list(tokenEntry),
})
export type PayeeRules = z.infer<typeof payeeRules>
export type RuleName = keyof PayeeRules
export const RULE_NAMES = Object.keys(payeeRules.shape) as RuleName[]

/** No list set: what an agent or user without rules has. */
export const NO_RULES: PayeeRules = Object.fromEntries(RULE_NAMES.map((k) => [k, null])) as PayeeRules

/** PUT bodies: a list left out stays as it is; null clears it; `clear: true` clears every list first. */
export const setPayeeRulesBody = payeeRules
  .partial()
  .extend({ clear: z.literal(true).optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, `set at least one of ${RULE_NAMES.join(', ')} or clear`)
export type SetPayeeRulesBody = z.input<typeof setPayeeRulesBody>

/** GET/PUT /api/agents/:id/policy: the agent's own rules and its owner's (which apply too). */
export const agentPolicy = z.object({
  agentId: z.string(),
  rules: payeeRules,
  userRules: payeeRules,
})
export type AgentPolicy = z.infer<typeof agentPolicy>

/**
 * What a user sets once for agents it creates later: rules and limits copied into each new agent
 * at its creation (later changes of the default do not reach agents that exist).
 */
export const defaultPolicy = z.object({
  rules: payeeRules,
  perPaymentUsd: z.string().nullable(),
  dailyUsd: z.string().nullable(),
})
export type DefaultPolicy = z.infer<typeof defaultPolicy>

/** GET/PUT /api/users/me/policy: the user's rules (for all its agents) and the default for new agents. */
export const userPolicy = z.object({ rules: payeeRules, default: defaultPolicy })
export type UserPolicy = z.infer<typeof userPolicy>

/** PUT /api/users/me/policy/default: like rules, plus the new agents' limits (null: none). */
export const setDefaultPolicyBody = payeeRules
  .partial()
  .extend({
    clear: z.literal(true).optional(),
    perPaymentUsd: usdAmount.nullable().optional(),
    dailyUsd: usdAmount.nullable().optional(),
  })
  .strict()
  .refine(
    (b) => Object.keys(b).length > 0,
    `set at least one of ${RULE_NAMES.join(', ')}, perPaymentUsd, dailyUsd or clear`,
  )
export type SetDefaultPolicyBody = z.input<typeof setDefaultPolicyBody>

/**
 * Which rule refused, in a dry-run verdict and in LIMIT_EXCEEDED's fields. `rule`: one of the eight
 * lists, or a limit (`perPayment`, `daily`); `scope`: whose rule; `value`: what was refused (the
 * host, payTo, network, token) or, for a limit, the limit in USD.
 */
export const refusedBy = z.object({
  rule: z.string(),
  scope: z.enum(['agent', 'user']),
  value: z.string().nullable(),
  message: z.string(),
})
export type RefusedBy = z.infer<typeof refusedBy>
