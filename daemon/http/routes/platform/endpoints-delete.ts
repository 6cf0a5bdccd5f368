import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { route } from '../../route.js'
import { platformParams } from './body.js'

const r = platformRoutes.deleteEndpoint

/** Stops serving at once: the paid URL answers 404 from the next request. */
export default route({
  method: r.method, path: r.path, auth: 'open', surface: 'platform',
  handler: async (c, s) => {
    const userId = s.userOf(await s.caller(c, 'user'))
    const { id } = platformParams(c, r.params)
    if (!(await s.endpoints.remove(userId, id))) throw new BaseError('NOT_FOUND', `no endpoint ${id} for this key`)
    return c.json({ id, deleted: true as const })
  },
})
