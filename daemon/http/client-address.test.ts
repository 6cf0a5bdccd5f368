import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Context } from 'hono'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load.js'
import { BaseError } from '../../src/errors/index.js'
import { authService } from '../auth/service.js'
import { verdictCache } from '../auth/verdict-cache.js'
import type { Caller } from '../platform/service.js'
import { openStore } from '../store/store.js'
import { createApiServer } from './api-server.js'
import { type AppDeps, createApp } from './app.js'
import { clientOf, trustedProxies } from './client-address.js'
import { apiLimiter } from './middleware/api-limiter.js'
import { rateLimiter } from './middleware/rate-limit.js'
import { route } from './route.js'

/**
 * Issue 25 item 6, over real sockets on 127.0.0.1 (the address needs one): the client behind a
 * trusted proxy is taken from X-Forwarded-For, an untrusted peer's X-Forwarded-For is ignored,
 * authenticated callers get buckets of their own, and a hosted profile does not exempt loopback.
 */
const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))))
})

const whoami = route({
  method: 'GET',
  path: '/test/whoami',
  auth: 'open',
  surface: 'keys',
  handler: (c) => c.json(clientOf(c)),
})
const mine = route({
  method: 'GET',
  path: '/test/mine',
  auth: 'user',
  surface: 'keys',
  handler: (c, _s, { caller }) => c.json(caller),
})
/** A user key is `u-<name>`: enough to show whose bucket a request draws from. */
const callers = {
  async caller(c: Context): Promise<Caller> {
    const key = c.req.header('x-user-key')
    if (!key?.startsWith('u-')) throw new BaseError('UNAUTHORIZED', 'send a user key')
    return { kind: 'user', userId: key.slice(2) }
  },
}

async function serve(
  d: Partial<AppDeps>,
): Promise<(path: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>> {
  const app = createApp({
    surfaces: { keys: {} as never },
    routes: [whoami, mine],
    log: pino({ level: 'silent' }),
    flowEnabled: () => true,
    callers,
    auth: authService({
      auth: { enforce: true, keyPrefix: 'parx' },
      operatorToken: 'x'.repeat(32),
      verdicts: verdictCache({ lookup: async () => undefined }),
    }),
    limiter: rateLimiter({ perSecond: 0.001, burst: 2, exemptLoopback: false }),
    ...d,
  })
  const server = createApiServer((req, env) => app.fetch(req, env))
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return async (path, headers = {}) => {
    const res = await fetch(`${base}${path}`, { headers })
    return { status: res.status, body: await res.json() }
  }
}

describe('trusted proxies', () => {
  it('behind a trusted proxy, two clients (X-Forwarded-For) get separate buckets', async () => {
    const get = await serve({ proxies: trustedProxies(['127.0.0.1/32']) })
    const a = { 'x-forwarded-for': '198.51.100.7' }
    const b = { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' }
    expect((await get('/test/whoami', a)).body).toEqual({ address: '198.51.100.7', forwardedTrusted: true })
    expect((await get('/test/whoami', a)).status).toBe(200)
    expect((await get('/test/whoami', a)).body.code).toBe('RATE_LIMITED')
    // The nearest untrusted hop is the client: 203.0.113.9, which has its own bucket.
    expect((await get('/test/whoami', b)).body).toEqual({ address: '203.0.113.9', forwardedTrusted: true })
    expect((await get('/test/whoami', b)).status).toBe(200)
    expect((await get('/test/whoami', b)).status).toBe(429)
  })

  it("an untrusted peer's X-Forwarded-For is ignored: the socket's address is the client", async () => {
    for (const proxies of [undefined, trustedProxies(['10.0.0.0/8'])]) {
      const get = await serve({ proxies })
      expect((await get('/test/whoami', { 'x-forwarded-for': '198.51.100.1' })).body).toEqual({
        address: '127.0.0.1',
        forwardedTrusted: false,
      })
      expect((await get('/test/whoami', { 'x-forwarded-for': '198.51.100.2' })).status).toBe(200)
      // A third "client" is the same socket address, whose bucket is empty.
      expect((await get('/test/whoami', { 'x-forwarded-for': '198.51.100.3' })).body.code).toBe('RATE_LIMITED')
    }
  })

  it('refuses a trusted-proxy setting that is not an address, a CIDR or a proxy-addr name', () => {
    expect(() => loadConfig({ env: { PARX_TRUSTED_PROXIES: '10.0.0.0/8,not-an-ip' }, file: {} })).toThrow(
      /http\.trustedProxies/,
    )
    expect(loadConfig({ env: { PARX_TRUSTED_PROXIES: '10.0.0.0/8, loopback' }, file: {} }).http.trustedProxies).toEqual(
      ['10.0.0.0/8', 'loopback'],
    )
  })
})

describe('limits keyed by caller', () => {
  it('an authenticated caller draws from its own bucket, not its address; a failed key costs the address', async () => {
    const get = await serve({})
    expect((await get('/test/mine', { 'x-user-key': 'u-alice' })).body).toEqual({ kind: 'user', userId: 'alice' })
    expect((await get('/test/mine', { 'x-user-key': 'u-alice' })).status).toBe(200)
    expect((await get('/test/mine', { 'x-user-key': 'u-alice' })).body.code).toBe('RATE_LIMITED')
    // Same address, another user: its own bucket.
    expect((await get('/test/mine', { 'x-user-key': 'u-bob' })).status).toBe(200)
    // Anonymous and wrong keys share the address's bucket: two, then refused.
    expect((await get('/test/mine', { 'x-user-key': 'wrong' })).body.code).toBe('UNAUTHORIZED')
    expect((await get('/test/whoami')).status).toBe(200)
    expect((await get('/test/mine', { 'x-user-key': 'wrong-again' })).body.code).toBe('RATE_LIMITED')
    expect((await get('/test/mine', { 'x-user-key': 'u-bob' })).status).toBe(200)
  })
})

describe('loopback exemption', () => {
  it('is off by default on testnet and mainnet, on for the local profile, and settable', async () => {
    const store = await openStore({ file: ':memory:' })
    try {
      const limiter = (env: Record<string, string | undefined>) =>
        apiLimiter(
          loadConfig({ env: { PARX_RATE_LIMIT_BURST: '2', PARX_RATE_LIMIT_PER_SECOND: '0.001', ...env }, file: {} }),
          store,
          pino({ level: 'silent' }),
        )
      for (const profile of ['testnet', 'mainnet']) {
        const get = await serve({ limiter: limiter({ PARX_PROFILE: profile }) })
        expect((await get('/test/whoami')).status).toBe(200)
        expect((await get('/test/whoami')).status).toBe(200)
        expect((await get('/test/whoami')).body.code, profile).toBe('RATE_LIMITED')
      }
      for (const env of [
        { PARX_PROFILE: 'local' },
        { PARX_PROFILE: 'testnet', PARX_RATE_LIMIT_EXEMPT_LOOPBACK: 'true' },
      ]) {
        const get = await serve({ limiter: limiter(env) })
        for (let i = 0; i < 5; i++) expect((await get('/test/whoami')).status, JSON.stringify(env)).toBe(200)
      }
    } finally {
      await store.close()
    }
  })
})
