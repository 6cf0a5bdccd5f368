import { readiness } from '../../../../src/sdk/discovery/readiness.js'
import { route } from '../../route.js'

/** On every role, workers too: the checks, this process' role and whether it leads the worker duties. */
export default route({
  method: 'GET',
  path: '/api/readiness',
  auth: 'open',
  surface: 'discovery',
  summary:
    'whether this process can serve (the store and every chain, ' +
    '503 if not), its role, and whether it leads the worker duties',
  response: readiness,
  handler: async (c, s) => {
    const r = await s.readiness()
    return c.json(r, r.ready ? 200 : 503)
  },
})
