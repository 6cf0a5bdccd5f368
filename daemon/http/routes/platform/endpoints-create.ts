import { randomUUID } from 'node:crypto'
import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { endpointView } from '../../../seller/endpoints.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.createEndpoint

/**
 * A paid endpoint in front of an upstream URL; payTo is one of the user's agents (its wallet) or an
 * address. With `webhookUrl`, its signing secret is in this answer and never again.
 */
export default platformRoute(r, async (c, s, { body, caller }) => {
  const userId = s.userOf(caller)
  const chain = s.endpointChain(body.network)
  if (!chain?.tokens[body.token])
    throw new BaseError(
      'NETWORK_UNSUPPORTED',
      `${body.network} ${body.token} is not served by this deployment (profile ${s.profile})`,
    )
  // A channel deposit is an ERC-3009 authorization to the deposit collector: only such tokens can fund one.
  if (body.batchSettlement && chain.tokens[body.token]!.eip3009 !== true) {
    throw new BaseError(
      'BAD_REQUEST',
      `invalid field 'batchSettlement': ${body.token} on ${body.network} ` +
        `has no EIP-3009, which a batch-settlement deposit needs (use USDC)`,
    )
  }
  // Off the local profile a buyer would otherwise name its own receiver authorizer and refund to
  // itself what it spent: the channels' authorizer is always ours, so without one, no channels.
  if (body.batchSettlement && !s.batchReceiverAuthorizer) {
    throw new BaseError(
      'BATCH_AUTHORIZER_NOT_CONFIGURED',
      `invalid field 'batchSettlement': this deployment holds no batch-settlement receiver authorizer ` +
        `to sign the endpoint's claims and refunds; the operator sets PARX_BATCH_RECEIVER_AUTHORIZER_KEY ` +
        `(keys.batchReceiverAuthorizer), or create the endpoint without batchSettlement`,
    )
  }
  // auth-capture: the hold is placed through the escrow's ERC-3009 collector, and the platform is
  // the seller's consent to every capture, void and refund, and funds refunds from payTo's wallet:
  // so payTo must be an agent whose wallet it holds, and the deployment needs the receiver authorizer.
  if (body.authCapture && chain.tokens[body.token]!.eip3009 !== true) {
    throw new BaseError(
      'BAD_REQUEST',
      `invalid field 'authCapture': ${body.token} on ${body.network} ` +
        `has no EIP-3009, which an auth-capture hold needs (use USDC)`,
    )
  }
  if (body.authCapture && body.payTo.startsWith('0x')) {
    throw new BaseError(
      'BAD_REQUEST',
      "invalid field 'authCapture': payTo must be one of your agent ids: " +
        'the platform captures, voids and funds refunds from that wallet',
    )
  }
  if (body.authCapture && !s.batchReceiverAuthorizer) {
    throw new BaseError(
      'AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED',
      "invalid field 'authCapture': this deployment holds no receiver authorizer to consent " +
        "to the endpoint's captures, voids and refunds; the operator sets PARX_BATCH_RECEIVER_AUTHORIZER_KEY " +
        '(keys.batchReceiverAuthorizer), or create the endpoint without authCapture',
    )
  }
  // A URL the egress guard refuses would never be reached: refused now, not at the first paid call.
  await s.egress.check(body.upstreamUrl, 'upstreamUrl')
  if (body.webhookUrl) await s.egress.check(body.webhookUrl, 'webhookUrl')
  await s.quotas.endpoint(userId)
  if (body.webhookUrl) await s.quotas.webhook(userId)
  let payTo = body.payTo
  let payToAgentId: string | null = null
  if (!payTo.startsWith('0x')) {
    const agent = await s.ownedAgent(caller, payTo)
    if (agent.network !== body.network)
      throw new BaseError(
        'BAD_REQUEST',
        `invalid field 'payTo': agent ${agent.id} lives on ${agent.network}, not ${body.network}`,
      )
    payTo = agent.address as typeof payTo
    payToAgentId = agent.id
  }
  const id = randomUUID()
  const secret = body.webhookUrl ? s.webhooks.secrets.make(id) : undefined
  const row = await s.endpoints.create({
    id,
    user_id: userId,
    name: body.name ?? null,
    upstream_url: body.upstreamUrl,
    price: body.price,
    network: body.network,
    token: body.token,
    pay_to: payTo,
    pay_to_agent_id: payToAgentId,
    discoverable: body.discoverable ? 1 : 0,
    description: body.description ?? null,
    webhook_url: body.webhookUrl ?? null,
    webhook_secret: secret?.stored ?? null,
    batch_settlement: body.batchSettlement ? 1 : 0,
    auth_capture: body.authCapture ? 1 : 0,
  })
  return c.json({ ...endpointView(row, s.platformUrl), ...(secret ? { webhookSecret: secret.shown } : {}) })
})
