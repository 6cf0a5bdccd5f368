import { BaseError } from '../../../../src/errors/index.js'
import { platformRoutes } from '../../../../src/sdk/platform/routes.js'
import { forgetMppGates } from '../../../seller/paid-mpp.js'
import { platformRoute } from './contract-route.js'

const r = platformRoutes.deleteEndpoint

/** Stops serving at once: the paid URL answers 404 from the next request, and this process drops its MPP gate. */
export default platformRoute(r, async (c, s, { params, caller }) => {
  const userId = s.userOf(caller)
  const { id } = params
  if (!(await s.endpoints.remove(userId, id))) throw new BaseError('NOT_FOUND', `no endpoint ${id} for this key`)
  // Other replicas never serve it again either; their gate for it goes with their least recently used.
  forgetMppGates(id)
  return c.json({ id, deleted: true as const })
})
