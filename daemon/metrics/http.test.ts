import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { parseScrape } from '../../test/helpers/prometheus.js'
import { authService } from '../auth/service.js'
import { verdictCache } from '../auth/verdict-cache.js'
import { createApp } from '../http/app.js'
import { rateLimiter } from '../http/middleware/rate-limit.js'
import { route } from '../http/route.js'
import { createMetrics } from './registry.js'

const show = route({
  method: 'GET',
  path: '/api/things/:id',
  auth: 'open',
  surface: 'discovery',
  params: z.object({ id: z.string() }),
  handler: (c) => c.json({}),
})
const op = route({ method: 'GET', path: '/api/op', auth: 'operator', surface: 'keys', handler: (c) => c.json({}) })

describe('HTTP metrics', () => {
  it('count answers by route template (never the URL), method, status and surface; unmatched URLs add no series', async () => {
    const m = createMetrics({ enabled: true })
    const app = createApp({
      surfaces: { discovery: {} as never, keys: {} as never },
      auth: authService({
        auth: { enforce: true, keyPrefix: 'parx' },
        operatorToken: 'o'.repeat(24),
        verdicts: verdictCache({ lookup: async () => undefined }),
      }),
      log: pino({ level: 'silent' }),
      limiter: rateLimiter({ perSecond: 1000, burst: 1000, exemptLoopback: false }),
      flowEnabled: () => true,
      routes: [show, op],
      metrics: m.http,
    })
    for (const id of ['1', '2', '3']) await app.request(`/api/things/${id}`)
    await app.request('/api/op')
    for (const p of ['/x', '/y/z']) await app.request(p)
    const counts = parseScrape((await m.scrape()).body)
      .samples('parx_http_request_duration_seconds_count')
      .map((s) => `${s.labels.method} ${s.labels.route} ${s.labels.status} ${s.labels.surface} = ${s.value}`)
    expect(counts.sort()).toEqual([
      'GET /api/op 401 keys = 1',
      'GET /api/things/:id 200 discovery = 3',
      'GET unmatched 404 none = 2',
    ])
  })
})
