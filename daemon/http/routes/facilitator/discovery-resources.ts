import { discoveryQuery } from '../../../../src/sdk/x402/bazaar.js'
import { route } from '../../route.js'

/**
 * GET /facilitator/discovery/resources: the bazaar extension's listing (@x402/extensions 2.27), open
 * as the reference facilitators serve it: the platform's seller endpoints that opted in
 * (`discoverable`), with the filters and offset paging the extension defines.
 */
export default route({
  method: 'GET',
  path: '/facilitator/discovery/resources',
  auth: 'open',
  surface: 'bazaar',
  query: discoveryQuery,
  handler: async (c, s, { query }) => c.json(await s.list(query)),
})
