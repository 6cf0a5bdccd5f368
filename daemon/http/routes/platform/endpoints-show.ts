import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { endpointView } from '../../../seller/endpoints.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.showEndpoint

/** Another user's endpoint is NOT_FOUND, like one that does not exist. */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const userId = s.userOf(caller)
  const { id } = params
  const e = await s.endpoints.owned(userId, id)
  if (!e) throw new BaseError('NOT_FOUND', `no endpoint ${id} for this key`)
  return c.json(endpointView(e, s.platformUrl))
})
