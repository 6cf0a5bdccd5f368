import { z } from 'zod'
import { agent, agentKeyInfo, type createdAgentKey } from '../platform/agents.js'
import { label } from '../platform/fields.js'
import { limits } from '../platform/limits.js'
import { payeeRules } from '../platform/policy.js'

/**
 * The dashboard's wire contract (served by the daemon at {dashboard_url}, docs/dashboard.md "Dashboard"): the
 * bodies and answers of its JSON routes under /dashboard/api. The page's script (daemon/dashboard/client/, typed
 * against these) and the tests speak it; the daemon's routes take their schemas from here.
 */

/** POST /dashboard/api/siwe/message: the wallet asks for a message to sign. */
export const siweMessageBody = z
  .object({
    address: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address'),
    chainId: z.number().int().positive(),
  })
  .strict()
export const siweMessage = z.object({ message: z.string(), nonce: z.string(), expiresAt: z.string() })
export type SiweMessage = z.infer<typeof siweMessage>

/** POST /dashboard/api/siwe/login: the signed EIP-4361 message. */
export const siweLoginBody = z
  .object({
    message: z.string().min(1).max(4096),
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/, 'must be 0x hex'),
  })
  .strict()

/** The signed-in session as the page sees it; `csrfToken` goes back in x-csrf-token on every POST and DELETE. */
export const session = z.object({ wallet: z.string(), csrfToken: z.string(), expiresAt: z.string() })
export type DashboardSession = z.infer<typeof session>

/** A partner key as listed: the secret is never in a list, only `masked` (prefix and last four). */
export const partnerKey = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  masked: z.string(),
  state: z.enum(['active', 'deactivated']),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
})
export type PartnerKeyView = z.infer<typeof partnerKey>
export const partnerKeyList = z.object({ keys: z.array(partnerKey), propagation: z.string() })
export type PartnerKeyList = z.infer<typeof partnerKeyList>
export const createPartnerKeyBody = z
  .object({
    name: label,
    description: z.string().trim().max(280, 'is longer than 280 characters').optional(),
  })
  .strict()
/** The only answer that holds the secret. */
export const createdPartnerKey = z.object({ key: partnerKey, secret: z.string() })
export type CreatedPartnerKey = z.infer<typeof createdPartnerKey>
export const idParams = z.object({ id: z.string().uuid('must be a UUID') })

/** CLI user keys of the wallet's platform user ("command line access", docs/dashboard.md "Dashboard"). */
export const userKey = z.object({
  id: z.string(),
  masked: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
})
export const userKeyList = z.object({ userId: z.string(), keys: z.array(userKey) })
export const createdUserKey = z.object({ key: userKey, userKey: z.string() })
export type UserKeyView = z.infer<typeof userKey>
export type UserKeyList = z.infer<typeof userKeyList>
export type CreatedUserKey = z.infer<typeof createdUserKey>

export const agentDetail = z.object({
  agent,
  /** null when the chain did not answer; `balanceError` then says why. */
  balance: z
    .object({
      tokens: z.array(z.object({ symbol: z.string(), amount: z.string() })),
      native: z.object({ symbol: z.string(), amount: z.string() }),
    })
    .nullable(),
  balanceError: z.string().nullable(),
  keys: z.array(agentKeyInfo),
  // Its payments are paged apart: GET /dashboard/api/agents/:id/payments (payments.ts).
  limits,
  /**
   * Its payee and network rules and its user's, which apply too (src/sdk/platform/policy.ts); set with POST
   * /dashboard/api/agents/:id/policy.
   */
  policy: z.object({ rules: payeeRules, userRules: payeeRules }),
})
export type AgentDetail = z.infer<typeof agentDetail>
export const agentsPage = z.object({ agents: z.array(agent), networks: z.array(z.string()), canCreate: z.boolean() })
export type AgentsPage = z.infer<typeof agentsPage>
export const agentKeyParams = z.object({
  id: z.string().uuid('must be a UUID'),
  keyId: z.string().uuid('must be a UUID'),
})
export const labelBody = z.object({ label: label.optional() }).strict()
export type LabelBody = z.infer<typeof labelBody>
/** POST /dashboard/api/agents/:id/keys answers what the platform's route does: the key once. */
export type CreatedAgentKey = z.infer<typeof createdAgentKey>
