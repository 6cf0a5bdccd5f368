import { route } from '../../route.js'

/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of every route, generated from the route table
 * (daemon/http/openapi/).
 */
export default route({
  method: 'GET',
  path: '/api/openapi.json',
  auth: 'open',
  surface: 'discovery',
  summary: 'this API as an OpenAPI 3.1 document, generated from the route table',
  handler: async (c, s) => c.body(await s.openApi(), 200, { 'content-type': 'application/json' }),
})
