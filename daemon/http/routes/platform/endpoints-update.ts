import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { type EndpointChange, endpointView } from '../../../seller/endpoints.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.updateEndpoint

/**
 * Opt in or out of the bazaar, describe the endpoint, set, change or remove its settlement webhook.
 * A new webhook URL (where there was none) or `rotateWebhookSecret` makes a new secret, shown in
 * this answer only; changing the URL of an existing webhook keeps its secret.
 */
export default platformRoute(r, async (c, s, { params, body, caller }) => {
  const userId = s.userOf(caller)
  const current = await s.endpoints.owned(userId, params.id)
  if (!current) throw new BaseError('NOT_FOUND', `no endpoint ${params.id} for this key`)
  const change: EndpointChange = {}
  if (body.discoverable !== undefined) change.discoverable = body.discoverable ? 1 : 0
  if (body.description !== undefined) change.description = body.description
  const url = body.webhookUrl === undefined ? current.webhook_url : body.webhookUrl
  if (body.rotateWebhookSecret && !url)
    throw new BaseError(
      'BAD_REQUEST',
      "invalid field 'rotateWebhookSecret': the endpoint has no webhook; give webhookUrl",
    )
  let shown: string | undefined
  if (body.webhookUrl) await s.egress.check(body.webhookUrl, 'webhookUrl')
  if (body.webhookUrl && !current.webhook_url) await s.quotas.webhook(userId, current.id)
  if (body.webhookUrl === null) Object.assign(change, { webhook_url: null, webhook_secret: null })
  else if (url) {
    change.webhook_url = url
    if (!current.webhook_secret || body.rotateWebhookSecret) {
      const secret = s.webhooks.secrets.make(current.id)
      change.webhook_secret = secret.stored
      shown = secret.shown
    }
  }
  const row = await s.endpoints.update(userId, params.id, change)
  if (!row) throw new BaseError('NOT_FOUND', `no endpoint ${params.id} for this key`)
  return c.json({ ...endpointView(row, s.platformUrl), ...(shown ? { webhookSecret: shown } : {}) })
})
