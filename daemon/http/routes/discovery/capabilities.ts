import { route } from '../../route.js'

export default route({
  method: 'GET',
  path: '/api/capabilities',
  auth: 'open',
  surface: 'discovery',
  handler: (c, s) => c.json(s.capabilities()),
})
