import type { IncomingMessage, ServerResponse } from 'node:http'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { Context } from 'hono'
import { BaseError } from '../../../../src/errors/index.js'
import { PAID_ENDPOINT_PATH } from '../../../../src/sdk/platform/routes.js'
import type { PlatformOperations } from '../../../platform/service.js'
import { paidUrl } from '../../../seller/endpoints.js'
import { servePaid } from '../../../seller/paid.js'
import { readRawBody } from '../../parse.js'
import { route } from '../../route.js'

/**
 * The largest body a buyer may send to a paid endpoint (docs/hosting.md "Hosting safely": body caps). The
 * request is forwarded to the seller's upstream once paid, so it is held in memory until then:
 * this bounds what one unauthenticated request can make the daemon hold.
 */
export const PAID_MAX_BODY = 1024 * 1024

/**
 * ANY /paid/:id (GET and POST here): the seller endpoint's stable URL, open to anyone who pays.
 * Our Node seller middleware writes the answer on the socket itself, so the handler hands Hono
 * RESPONSE_ALREADY_SENT. The body is capped at PAID_MAX_BODY while it streams (413 past it).
 */
async function handler(c: Context, s: PlatformOperations): Promise<Response> {
  const id = c.req.param('id') ?? ''
  const endpoint = /^[0-9a-f-]{36}$/i.test(id) ? await s.endpoints.served(id.toLowerCase()) : undefined
  if (!endpoint) throw new BaseError('NOT_FOUND', `no paid endpoint ${id}`)
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined
  const chain = s.endpointChain(endpoint.network)
  if (!env?.incoming || !env.outgoing || !chain)
    throw new BaseError('CHAIN_UNAVAILABLE', `the endpoint's network ${endpoint.network} is not served now`)
  const raw = await readRawBody(c, PAID_MAX_BODY)
  const body = raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength) as ArrayBuffer
  await servePaid({
    endpoint,
    chain,
    facilitatorUrl: s.facilitatorUrl,
    mppSecret: s.mppSecret,
    req: env.incoming,
    res: env.outgoing,
    body,
    timeoutMs: s.paidUpstreamTimeoutMs,
    fetch: s.egress.fetch,
    channels: s.sellerChannels,
    answers: s.sellerAnswers,
    holds: s.sellerHolds,
    // The platform asks a delegated refund as the channel's receiver only where it holds that
    // wallet (payTo one of the user's agents): a bare payTo address is unproven, and vouching for
    // it would let a buyer refund what another seller paid to that address charged and not yet claimed.
    facilitator: s.paidFacilitator?.(endpoint.pay_to_agent_id ? endpoint.pay_to : undefined),
    onSettled: (o) => s.webhooks.record({ ...o, endpoint, paidUrl: paidUrl(s.platformUrl, endpoint.id) }),
    onHookError: (err) => s.webhookNotQueued(err, endpoint.id),
  })
  return RESPONSE_ALREADY_SENT
}

const PAID_SUMMARY =
  "a seller's paid endpoint: answers 402 with its terms, then the upstream's answer once paid (x402 or MPP headers)"

export const paidGet = route({
  method: 'GET',
  path: PAID_ENDPOINT_PATH,
  auth: 'open',
  surface: 'platform',
  maxBody: PAID_MAX_BODY,
  rawBody: true,
  summary: PAID_SUMMARY,
  handler,
})
export const paidPost = route({
  method: 'POST',
  path: PAID_ENDPOINT_PATH,
  auth: 'open',
  surface: 'platform',
  maxBody: PAID_MAX_BODY,
  rawBody: true,
  summary: PAID_SUMMARY,
  handler,
})
