import { Hono } from 'hono'
import { getConnInfo } from '@hono/node-server/conninfo'
import { BaseError } from '../../src/errors/index.js'
import type { Services } from '../services.js'
import { authorize } from './middleware/auth.js'
import { errorHandler } from './middleware/errors.js'
import { rateLimiter } from './middleware/rate-limit.js'
import { routes } from './routes/index.js'

/** The daemon's HTTP app, built without listening so tests can call it in-process. */
export function createApp(s: Services): Hono {
  const app = new Hono()
  app.onError(errorHandler(s.log))
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}; see the README for the routes`, code: 'NOT_FOUND' }, 404))
  const limiter = rateLimiter(s.config.rateLimit)
  for (const def of routes) {
    app.on(def.method, def.path, async (c) => {
      limiter.check(getConnInfo(c).remote.address)
      await authorize(c, def, s)
      if (def.flow && !s.flowEnabled(def.flow)) {
        throw new BaseError('FLOW_DISABLED', `the ${def.flow} flow is disabled on this service (see GET /api/capabilities)`)
      }
      return def.handler(c, s)
    })
  }
  return app
}
