import { Writable } from 'node:stream'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BaseError } from '../../../src/errors/index.js'
import { authService } from '../../auth/service.js'
import { verdictCache } from '../../auth/verdict-cache.js'
import { type AppDeps, createApp } from '../app.js'
import { currentRequestId } from '../request-id.js'
import { route } from '../route.js'
import { rateLimiter } from './rate-limit.js'

// The request id on every answer of the app (successes, 404s, 413s, auth failures, 429s), in every
// error body, and on the log lines the request causes, with the daemon logger's mixin.
const lines: Array<Record<string, unknown>> = []
const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(JSON.parse(String(chunk))), cb()) })
const log = pino({ level: 'info', mixin: () => (currentRequestId() ? { requestId: currentRequestId() } : {}) }, sink)

const ok = route({
  method: 'GET',
  path: '/ok/:id',
  auth: 'open',
  surface: 'discovery',
  params: z.object({ id: z.string() }),
  handler: async (c) => {
    await new Promise((r) => setTimeout(r, 1))
    log.info('served')
    return c.json({ ok: true })
  },
})
const fails = route({
  method: 'GET',
  path: '/fails',
  auth: 'open',
  surface: 'discovery',
  handler: () => {
    throw new BaseError('BAD_REQUEST', 'no')
  },
})
const echo = route({
  method: 'POST',
  path: '/echo',
  auth: 'open',
  surface: 'discovery',
  maxBody: 10,
  body: z.record(z.unknown()),
  handler: (c) => c.json({}),
})
const operator = route({
  method: 'GET',
  path: '/op',
  auth: 'operator',
  surface: 'discovery',
  handler: (c) => c.json({}),
})

const app = (limiter = rateLimiter({ perSecond: 1000, burst: 1000, exemptLoopback: false })) =>
  createApp({
    surfaces: { discovery: {} as never },
    auth: authService({
      auth: { enforce: true, keyPrefix: 'parx' },
      operatorToken: 'o'.repeat(24),
      verdicts: verdictCache({ lookup: async () => undefined }),
    }),
    log,
    limiter,
    flowEnabled: () => true,
    routes: [ok, fails, echo, operator],
  } satisfies AppDeps)

describe('X-Request-Id', () => {
  it("returns the caller's id and logs the lines the request causes with it", async () => {
    const res = await app().request('/ok/1', { headers: { 'x-request-id': 'my-id-1' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('my-id-1')
    expect(lines.filter((l) => l.msg === 'served').at(-1)).toMatchObject({ requestId: 'my-id-1' })
  })

  it('makes one when none or a bad one is sent', async () => {
    const a = app()
    for (const headers of [{}, { 'x-request-id': 'bad id with spaces' }] as Array<Record<string, string>>) {
      const res = await a.request('/ok/2', { headers })
      expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{20}$/)
    }
  })

  it('is on every refusal and in its body: error, 404, 413, 401, 429', async () => {
    const a = app(rateLimiter({ perSecond: 0.001, burst: 5, exemptLoopback: false }))
    const cases: Array<[string, RequestInit, number]> = [
      ['/fails', {}, 400],
      ['/nowhere', {}, 404],
      [
        '/echo',
        {
          method: 'POST',
          body: JSON.stringify({ a: 'x'.repeat(50) }),
          headers: { 'content-type': 'application/json', 'content-length': '60' },
        },
        413,
      ],
      ['/op', {}, 401],
    ]
    for (const [path, init, status] of cases) {
      const id = `id-${status}`
      const res = await a.request(path, { ...init, headers: { ...(init.headers as object), 'x-request-id': id } })
      expect(res.status).toBe(status)
      expect(res.headers.get('x-request-id')).toBe(id)
      expect(await res.json()).toMatchObject({ code: expect.any(String), error: expect.any(String), requestId: id })
      // A refusal is logged once, with the id (daemon/http/middleware/errors.ts), 404s aside: no handler ran.
      if (status !== 404)
        expect(lines.filter((l) => l.requestId === id)).toEqual([
          expect.objectContaining({ msg: 'request refused', status, requestId: id }),
        ])
    }
    let last: Response | undefined
    for (let i = 0; i < 10 && last?.status !== 429; i++)
      last = await a.request('/ok/3', { headers: { 'x-request-id': 'id-429' } })
    expect(last!.status).toBe(429)
    expect(last!.headers.get('x-request-id')).toBe('id-429')
    expect(await last!.json()).toMatchObject({ code: 'RATE_LIMITED', requestId: 'id-429' })
  })
})
