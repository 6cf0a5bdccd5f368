import { route } from '../../route.js'

/** GET /api/openapi.json: the OpenAPI 3.1 document of every route, generated from the route table (daemon/http/openapi/). */
export default route({
  method: 'GET', path: '/api/openapi.json', auth: 'open', surface: 'discovery',
  summary: 'this API as an OpenAPI 3.1 document, generated from the route table',
  handler: async (c) => {
    // Loaded on first use: the generator and the document stay out of the daemon's start.
    const { servedDocument } = await import('../../openapi/served.js')
    return c.body(servedDocument(), 200, { 'content-type': 'application/json' })
  },
})
