import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { endpointView } from '../../../platform/endpoints.js'
import { route } from '../../route.js'
import { platformParams } from './body.js'

const r = platformRoutes.showEndpoint

/** Another user's endpoint is NOT_FOUND, like one that does not exist. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const userId = s.userOf(await s.caller(c, 'user'))
    const { id } = platformParams(c, r.params)
    const e = await s.endpoints.owned(userId, id)
    if (!e) throw new BaseError('NOT_FOUND', `no endpoint ${id} for this key`)
    return c.json(endpointView(e, s.platformUrl))
  },
})
