import { route } from '../../route.js'

export default route({
  method: 'GET',
  path: '/api/health',
  auth: 'open',
  surface: 'discovery',
  handler: (c) => c.json({ ok: true, ts: Date.now() }),
})
