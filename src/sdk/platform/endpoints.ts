import { z } from 'zod'
import { networks } from '../../networks/registry.js'
import { decimalAmount, evmAddress, httpUrl, isoTime, label, tokenSymbol, uuid } from './fields.js'
import { checkTokenAmount, issue, priceableTokens } from './networks.js'

/**
 * A seller endpoint: the platform serves `url` (x402 v1/v2 and MPP), settles through our
 * facilitator and forwards to `upstreamUrl` only after payment.
 */
export const endpoint = z.object({
  id: uuid,
  name: z.string().nullable(),
  /** The stable paid URL buyers call: `{agents_url}/paid/<id>`. */
  url: z.string().url(),
  upstreamUrl: z.string().url(),
  price: z.string(),
  network: z.string(),
  token: z.string(),
  /** The address paid; `payToAgentId` is set when it is one of the user's agents. */
  payTo: evmAddress,
  payToAgentId: uuid.nullable(),
  createdAt: isoTime,
  /** Listed in the bazaar (GET {facilitator_url}/discovery/resources) and declared in its 402s. */
  discoverable: z.boolean(),
  description: z.string().nullable(),
  /** Where each settlement outcome is POSTed, signed (docs/platform-api.md "Settlement webhooks"); null: none. */
  webhookUrl: z.string().url().nullable(),
  /**
   * Its 402 also offers x402 batch-settlement: a buyer deposits once and pays later calls with vouchers
   * (docs/platform-api.md "Batch settlement").
   */
  batchSettlement: z.boolean(),
  /**
   * Its 402 also offers x402 auth-capture: held before the upstream runs, captured after it answered, voided when it
   * failed, refundable (docs/platform-api.md "Auth-capture").
   */
  authCapture: z.boolean(),
})
export type Endpoint = z.infer<typeof endpoint>

/** Create and update answers: `webhookSecret` is present only when a secret was just made, the one time it is shown. */
export const endpointWithSecret = endpoint.extend({ webhookSecret: z.string().startsWith('whsec_').optional() })
export type EndpointWithSecret = z.infer<typeof endpointWithSecret>

/** What the bazaar shows of an endpoint: a short plain sentence. */
const description = z
  .string({ invalid_type_error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(500, 'is longer than 500 characters')
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), 'must not contain control characters')

export const endpointParams = z.object({ id: uuid })
export const endpointList = z.object({ endpoints: z.array(endpoint) })

/** `payTo` is an agent id of the same user (its wallet is paid) or any address. */
const payTo = z
  .string({ required_error: 'required', invalid_type_error: 'must be a string' })
  .trim()
  .refine(
    (v) => uuid.safeParse(v).success || evmAddress.safeParse(v).success,
    'must be one of your agent ids or an EVM address (not the zero address)',
  )
  .transform((v) => (uuid.safeParse(v).success ? v.toLowerCase() : evmAddress.parse(v)))

/**
 * POST /api/endpoints. The token is chosen here, once (docs/platform-api.md "POST /api/endpoints": no route changes
 * it).
 */
export const createEndpointBody = z
  .object({
    name: label.optional(),
    upstreamUrl: httpUrl,
    price: decimalAmount,
    network: z.string({ required_error: 'required' }).trim().toLowerCase(),
    token: tokenSymbol,
    payTo,
    /** Opt in to the bazaar listing (default: not listed). */
    discoverable: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    description: description.optional(),
    /** Settlement outcomes are POSTed here, signed with a secret shown once in the answer. */
    webhookUrl: httpUrl.optional(),
    /** Also offer x402 batch-settlement (payment channels; tokens with EIP-3009 such as USDC). */
    batchSettlement: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    /**
     * Also offer x402 auth-capture (refundable: held, captured after the upstream answered; EIP-3009 tokens, payTo one
     * of your agents).
     */
    authCapture: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    const n = networks[b.network]
    const usable = Object.values(networks)
      .filter((x) => x.family === 'evm' && priceableTokens(x).length > 0)
      .map((x) => x.key)
    if (!n || !usable.includes(n.key)) {
      return issue(
        ctx,
        ['network'],
        `'${b.network}' cannot take payments here; use one of ${usable.join(', ')}`,
        'NETWORK_UNSUPPORTED',
      )
    }
    checkTokenAmount(
      ctx,
      n,
      priceableTokens(n),
      { token: b.token, amount: b.price },
      { token: 'token', amount: 'price' },
      'prices',
    )
  })
export type CreateEndpointBody = z.input<typeof createEndpointBody>

/**
 * POST /api/endpoints/:id: change what a seller may change after creation. `webhookUrl: null`
 * removes the webhook; a new webhook URL, or `rotateWebhookSecret`, makes a new secret (shown once).
 */
export const updateEndpointBody = z
  .object({
    discoverable: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
    description: description.nullable().optional(),
    webhookUrl: httpUrl.nullable().optional(),
    rotateWebhookSecret: z.boolean({ invalid_type_error: 'must be true or false' }).optional(),
  })
  .strict()
  .refine(
    (b) => Object.keys(b).length > 0,
    'nothing to change: give discoverable, description, webhookUrl or rotateWebhookSecret',
  )
export type UpdateEndpointBody = z.input<typeof updateEndpointBody>

export const deletedEndpoint = z.object({ id: uuid, deleted: z.literal(true) })
