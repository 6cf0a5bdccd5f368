import { route } from '../../route.js'

/** Public configuration: what a client needs to talk to this service. Never secrets. */
export default route({
  method: 'GET',
  path: '/api/config',
  auth: 'open',
  surface: 'discovery',
  handler: (c, s) => c.json(s.publicConfig()),
})
