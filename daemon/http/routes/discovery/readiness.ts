import { route } from '../../route.js'

export default route({
  method: 'GET', path: '/api/readiness', auth: 'open', surface: 'discovery',
  handler: async (c, s) => {
    const r = await s.readiness()
    return c.json(r, r.ready ? 200 : 503)
  },
})
