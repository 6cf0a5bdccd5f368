import { z } from 'zod'
import { networks } from '../../networks/registry.js'
import { evmAddress, isoTime, label, uuid } from './fields.js'
import { limits } from './limits.js'
import { agentNetworks, issue } from './networks.js'

export const tokenInfo = z.object({
  symbol: z.string(),
  decimals: z.number().int(),
  /** null when the daemon has no address for it yet (a real network without config). */
  address: evmAddress.nullable(),
})

/** An agent: a named wallet on one network whose key the platform holds (never returned). */
export const agent = z.object({
  id: uuid,
  name: z.string(),
  network: z.string(),
  chainId: z.number().int(),
  /**
   * The agent's address: an EIP-7702 account on AA networks, a plain EOA on direct ones. Holds no gas on AA networks.
   */
  wallet: evmAddress,
  /** How send moves tokens: a sponsored ERC-4337 user operation, or a plain transfer paying the network's fee. */
  sendMethod: z.enum(['userOperation', 'transfer']),
  /** Tokens this agent may send and pay with (the registry's, docs/platform-api.md "Networks and tokens"). */
  tokens: z.array(tokenInfo),
  createdAt: isoTime,
  limits,
  /**
   * Frozen by its owner: no pay, send, swap or channel deposit is signed (AGENT_FROZEN); what was signed before follows
   * its course.
   */
  // Defaults: a daemon from before freezing (620) does not send them, and its agents cannot be frozen.
  frozen: z.boolean().default(false),
  /** When it was frozen; null while it may spend. */
  frozenAt: isoTime.nullable().default(null),
})
export type Agent = z.infer<typeof agent>

/**
 * GET /api/agents/me: the agent its key belongs to (docs/platform-api.md "GET /api/agents/me": id, chain, wallet and
 * tokens).
 */
export const agentMe = agent
export const agentList = z.object({ agents: z.array(agent) })

/** Routes that take an agent id. "me" is not an id: GET /api/agents/me is its own route. */
export const agentParams = z.object({ id: uuid })
export const agentKeyParams = z.object({ id: uuid, keyId: uuid })

/** POST /api/agents: name and a network from the registry (AA or direct). */
export const createAgentBody = z
  .object({
    name: label,
    network: z.string({ required_error: 'required' }).trim().toLowerCase(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const choices = agentNetworks().map((n) => n.key)
    if (!choices.includes(b.network)) {
      const known = networks[b.network] ? ` (${b.network} exists but agents cannot live there)` : ''
      issue(
        ctx,
        ['network'],
        `'${b.network}' is not an agent network${known}; use one of ${choices.join(', ')}`,
        'NETWORK_UNSUPPORTED',
      )
    }
  })
export type CreateAgentBody = z.input<typeof createAgentBody>

/** An agent key as listed: never the key itself, only its mask. */
export const agentKeyInfo = z.object({
  id: uuid,
  agentId: uuid,
  label: z.string().nullable(),
  /** `parx-a-…9f3c`: prefix and last 4 characters. */
  hint: z.string(),
  createdAt: isoTime,
  lastUsedAt: isoTime.nullable(),
  revokedAt: isoTime.nullable(),
})
export type AgentKeyInfo = z.infer<typeof agentKeyInfo>

export const createAgentKeyBody = z.object({ label: label.optional() }).strict()
export const createdAgentKey = z.object({
  key: agentKeyInfo,
  /** `parx-a-...`, shown this once. */
  agentKey: z.string().regex(/^parx-a-[0-9a-f]{64}$/),
})
export const agentKeyList = z.object({ keys: z.array(agentKeyInfo) })
