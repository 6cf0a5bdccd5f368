import type { Context } from 'hono'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { BaseError } from '../../src/errors/index.js'
import { partnerKeyStore } from '../auth/partner-keys.js'
import { authService, type KeysService, keysService } from '../auth/service.js'
import { verdictCache } from '../auth/verdict-cache.js'
import type { DiscoveryService } from '../discovery/service.js'
import type { Facilitator } from '../facilitator/service.js'
import { openStore, type Store } from '../store/store.js'
import { type AppDeps, createApp } from './app.js'
import { rateLimiter } from './middleware/rate-limit.js'
import { route } from './route.js'
import capabilities from './routes/discovery/capabilities.js'
import facilitatorSettle from './routes/facilitator/settle.js'
import facilitatorSupported from './routes/facilitator/supported.js'
import faucet from './routes/local/faucet.js'
import keysCreate from './routes/operator/keys-create.js'
import keysDeactivate from './routes/operator/keys-deactivate.js'
import keysList from './routes/operator/keys-list.js'

// Routes in-process (`app.request`): no socket, no anvil, no LiteSVM. The store is a real SQLite
// in memory; the chain-backed services are fakes that answer what the route must pass on.
const OPERATOR = 'operator-token-for-in-process-tests'
const stores: Store[] = []
afterEach(async () => void (await Promise.all(stores.splice(0).map((s) => s.close()))))

/** An auth service that knows no partner key. */
const noKeys = () =>
  authService({
    auth: { enforce: true, keyPrefix: 'parx' },
    operatorToken: OPERATOR,
    verdicts: verdictCache({ lookup: async () => undefined }),
  })

const appDeps = (d: Pick<AppDeps, 'surfaces' | 'routes'>): AppDeps => ({
  auth: noKeys(),
  log: pino({ level: 'silent' }),
  limiter: rateLimiter({ perSecond: 1000, burst: 1000, exemptLoopback: false }),
  flowEnabled: () => true,
  ...d,
})

async function setup() {
  const store = await openStore({ file: ':memory:' })
  stores.push(store)
  const partnerKeys = partnerKeyStore(store, 'parx')
  const verdicts = verdictCache({ lookup: (k) => partnerKeys.lookup(k) })
  const auth = authService({ auth: { enforce: true, keyPrefix: 'parx' }, operatorToken: OPERATOR, verdicts })
  const keys = keysService({ keys: partnerKeys, verdicts })
  const ping = route({
    method: 'GET',
    path: '/test/partner',
    auth: 'partner',
    surface: 'keys',
    handler: (c) => c.json({ ok: true }),
  })
  const app = createApp({
    ...appDeps({
      surfaces: { keys, faucet: { profile: 'testnet', defaultNetwork: 'base-sepolia' } },
      routes: [keysCreate, keysList, keysDeactivate, faucet, ping],
    }),
    auth,
  })
  const operator = { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }
  return { app, keys, operator }
}

const json = async (r: Response | Promise<Response>) => {
  const res = await r
  return { status: res.status, body: (await res.json()) as any }
}

describe('routes in-process', () => {
  it('operator key routes and the partner check, over a real store', async () => {
    const { app, operator } = await setup()
    expect(
      await json(
        app.request('/api/operator/keys', { method: 'POST', body: '{}', headers: { authorization: 'Bearer wrong' } }),
      ),
    ).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } })
    const created = await json(
      app.request('/api/operator/keys', {
        method: 'POST',
        headers: operator,
        body: JSON.stringify({ name: 'k', owner: '0x00000000000000000000000000000000000000aa' }),
      }),
    )
    expect(created.status).toBe(201)
    const key = created.body.key as string
    expect((await json(app.request('/test/partner', { headers: { 'x-api-key': key } }))).status).toBe(200)
    expect((await json(app.request('/test/partner'))).body).toEqual({
      error: 'missing or invalid x-api-key',
      code: 'UNAUTHORIZED',
      requestId: expect.any(String),
    })
    expect((await json(app.request('/api/operator/keys', { headers: operator }))).body.keys).toHaveLength(1)
    // A change made through this process applies at once, cached verdict or not.
    expect(
      (
        await json(
          app.request(`/api/operator/keys/${created.body.id}/deactivate`, { method: 'POST', headers: operator }),
        )
      ).status,
    ).toBe(200)
    expect((await json(app.request('/test/partner', { headers: { 'x-api-key': key } }))).status).toBe(401)
  })

  it('a store that cannot be reached answers 503 STORE_UNAVAILABLE, never a 500', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    const keys: KeysService = {
      create: () => Promise.reject(down),
      list: () => Promise.reject(down),
      get: () => Promise.reject(down),
      setState: () => Promise.reject(down),
    }
    const broken = createApp(appDeps({ surfaces: { keys }, routes: [keysList] }))
    const operator = { authorization: `Bearer ${OPERATOR}` }
    expect(await json(broken.request('/api/operator/keys', { headers: operator }))).toEqual({
      status: 503,
      body: {
        error: 'the store (database) cannot be reached right now; retry shortly',
        code: 'STORE_UNAVAILABLE',
        requestId: expect.any(String),
      },
    })
  })

  it('the faucet answers PROFILE_ONLY where there is none', async () => {
    const { app } = await setup()
    const r = await json(
      app.request('/api/local/faucet', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: '0x00000000000000000000000000000000000000aa' }),
      }),
    )
    expect(r).toMatchObject({ status: 404, body: { code: 'PROFILE_ONLY' } })
  })

  it('facilitator and discovery routes pass on what their service answers', async () => {
    const supported = { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:1' }], extensions: [], signers: {} }
    const facilitator: Facilitator = {
      supported: () => supported as never,
      verify: async () => ({ isValid: true, payer: '0x1', invalidReason: null }) as never,
      settle: async () => ({
        success: false,
        errorReason: 'duplicate_settlement',
        errorMessage: 'settled before',
        payer: '0x1',
        transaction: '0xabc',
        network: 'eip155:84532',
      }),
      warmUp: async () => {},
      reconcile: async () => {},
      statusOf: async () => {
        throw new Error('not called')
      },
      statusOfTransaction: async () => {
        throw new Error('not called')
      },
      stop: async () => {},
    }
    const discovery = { capabilities: () => ({ profile: 'local', flows: {} }) } as unknown as DiscoveryService
    const app = createApp(
      appDeps({
        surfaces: { facilitator: { service: facilitator, auth: noKeys() }, discovery },
        routes: [facilitatorSupported, facilitatorSettle, capabilities],
      }),
    )
    expect(await json(app.request('/facilitator/supported'))).toEqual({ status: 200, body: supported })
    expect(await json(app.request('/api/capabilities'))).toEqual({ status: 200, body: { profile: 'local', flows: {} } })
    const requirements = {
      scheme: 'exact',
      network: 'eip155:84532',
      asset: '0x0000000000000000000000000000000000000001',
      amount: '1',
      payTo: '0x0000000000000000000000000000000000000002',
      maxTimeoutSeconds: 60,
      extra: { name: 'USD Coin', version: '2' },
    }
    const authorization = {
      from: '0x0000000000000000000000000000000000000003',
      to: requirements.payTo,
      value: '1',
      validAfter: '0',
      validBefore: '99999999999',
      nonce: `0x${'01'.repeat(32)}`,
    }
    const body = {
      x402Version: 2,
      paymentPayload: {
        x402Version: 2,
        accepted: requirements,
        payload: { signature: `0x${'11'.repeat(65)}`, authorization },
      },
      paymentRequirements: requirements,
    }
    const settled = await json(
      app.request('/facilitator/settle', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    )
    expect(settled.status).toBe(409)
    expect(settled.body).toMatchObject({ success: false, errorReason: 'duplicate_settlement' })
  })

  it('refuses to build an app whose routes need a surface it was not given', async () => {
    const { keys } = await setup()
    expect(() => createApp(appDeps({ surfaces: { keys }, routes: [facilitatorSupported] }))).toThrow(
      /needs the facilitator surface/,
    )
  })
})

describe('routes as data: the app enforces what a route declares', () => {
  const Body = z.object({ amount: z.string().regex(/^\d+$/, 'a whole number') })
  const Params = z.object({ id: z.string().uuid('not an id') })
  const Query = z.object({ n: z.coerce.number().int().max(5) })
  const seen: unknown[] = []
  const echo = route({
    method: 'POST',
    path: '/test/echo/:id',
    auth: 'user',
    surface: 'keys',
    body: Body,
    query: Query,
    params: Params,
    maxBody: 64,
    handler: (c, _s, input) => {
      seen.push(input)
      return c.json({ ok: true })
    },
  })
  const ID = '0b8a3f0e-54d8-4c67-9d4e-1f3e4c1c2a11'
  const caller = { kind: 'user' as const, userId: 'u1' }
  const callers = {
    caller: async (c: Context) => {
      if (c.req.header('x-user-key') !== 'good') throw new BaseError('UNAUTHORIZED', 'send a user key in x-user-key')
      return caller
    },
  }
  const app = async () => {
    const store = await openStore({ file: ':memory:' })
    stores.push(store)
    const keys = keysService({
      keys: partnerKeyStore(store, 'parx'),
      verdicts: verdictCache({ lookup: async () => undefined }),
    })
    return createApp({ ...appDeps({ surfaces: { keys }, routes: [echo] }), callers })
  }
  const post = (a: Awaited<ReturnType<typeof app>>, path: string, body: string, key = 'good') =>
    json(a.request(path, { method: 'POST', body, headers: { 'x-user-key': key, 'content-type': 'application/json' } }))

  it('checks the caller first, then params, query and body, and hands the handler what it validated', async () => {
    const a = await app()
    seen.length = 0
    expect(await post(a, `/test/echo/${ID}?n=3`, '{"amount":"7"}', 'bad')).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    })
    expect(await post(a, '/test/echo/nope?n=3', '{"amount":"7"}')).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', error: "invalid path parameter 'id': not an id" },
    })
    expect(await post(a, `/test/echo/${ID}?n=9`, '{"amount":"7"}')).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST' },
    })
    expect(await post(a, `/test/echo/${ID}?n=3`, '{"amount":"7.5"}')).toMatchObject({
      status: 400,
      body: { error: "invalid field 'amount': a whole number" },
    })
    expect(await post(a, `/test/echo/${ID}?n=3`, '{"amount":')).toMatchObject({
      status: 400,
      body: { code: 'MALFORMED_JSON' },
    })
    expect(await post(a, `/test/echo/${ID}?n=3`, JSON.stringify({ amount: '1'.repeat(100) }))).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    })
    expect(seen).toEqual([])
    expect(await post(a, `/test/echo/${ID}?n=3`, '{"amount":"7"}')).toMatchObject({ status: 200 })
    expect(seen).toEqual([{ body: { amount: '7' }, query: { n: 3 }, params: { id: ID }, caller }])
  })

  it('parses a body only under a JSON Content-Type: anything else (what a page elsewhere can post without asking) is 415, unread by the handler', async () => {
    const a = await app()
    seen.length = 0
    const send = (headers: Record<string, string>, body = '{"amount":"7"}') =>
      json(a.request(`/test/echo/${ID}?n=3`, { method: 'POST', body, headers: { 'x-user-key': 'good', ...headers } }))
    // fetch gives a string body text/plain when no type is set; a Blob without a type sends none at all.
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
    ]) {
      expect(await send({ 'content-type': type }), type).toMatchObject({
        status: 415,
        body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
      })
    }
    expect(
      await json(
        a.request(`/test/echo/${ID}?n=3`, {
          method: 'POST',
          body: new Blob(['{"amount":"7"}']),
          headers: { 'x-user-key': 'good' },
        }),
      ),
    ).toMatchObject({ status: 415, body: { code: 'UNSUPPORTED_MEDIA_TYPE' } })
    expect(seen).toEqual([])
    for (const type of ['application/json', 'Application/JSON; charset=utf-8', 'application/merge-patch+json']) {
      expect(await send({ 'content-type': type }), type).toMatchObject({ status: 200 })
    }
    expect(seen).toHaveLength(3)
  })

  it('refuses to build an app whose key-taking routes have no caller resolver', async () => {
    const store = await openStore({ file: ':memory:' })
    stores.push(store)
    const keys = keysService({
      keys: partnerKeyStore(store, 'parx'),
      verdicts: verdictCache({ lookup: async () => undefined }),
    })
    expect(() => createApp(appDeps({ surfaces: { keys }, routes: [echo] }))).toThrow(/no callers resolver/)
  })
})
