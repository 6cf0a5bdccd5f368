import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { partnerKeyStore } from '../auth/partner-keys.js'
import { authService, keysService } from '../auth/service.js'
import { verdictCache } from '../auth/verdict-cache.js'
import { openStore, type Store } from '../store/store.js'
import { createApp } from './app.js'
import { rateLimiter } from './middleware/rate-limit.js'
import { type AnyRoute, route } from './route.js'
import { routes } from './routes/index.js'
import keysCreate from './routes/operator/keys-create.js'

/** Issue 25 item 7: an answer that shows a secret once is never kept by a cache. */
const OPERATOR = 'operator-token-for-no-store-tests'
const stores: Store[] = []
afterEach(async () => void (await Promise.all(stores.splice(0).map((s) => s.close()))))

async function app(extra: AnyRoute[]) {
  const store = await openStore({ file: ':memory:' })
  stores.push(store)
  const partnerKeys = partnerKeyStore(store, 'parx')
  const verdicts = verdictCache({ lookup: (k) => partnerKeys.lookup(k) })
  return createApp({
    auth: authService({ auth: { enforce: true, keyPrefix: 'parx' }, operatorToken: OPERATOR, verdicts }),
    log: pino({ level: 'silent' }),
    limiter: rateLimiter({ perSecond: 1000, burst: 1000, exemptLoopback: false }),
    flowEnabled: () => true,
    surfaces: { keys: keysService({ keys: partnerKeys, verdicts }) },
    routes: [keysCreate, ...extra],
  })
}

describe('Cache-Control: no-store', () => {
  it('on a created partner key (shown once), on a flagged open route, and not on other open answers', async () => {
    const signIn = route({
      method: 'POST',
      path: '/t/sign-in',
      auth: 'open',
      noStore: true,
      surface: 'keys',
      handler: (c) => c.json({ csrfToken: 'x' }),
    })
    const open = route({
      method: 'GET',
      path: '/t/open',
      auth: 'open',
      surface: 'keys',
      handler: (c) => c.json({ ok: true }),
    })
    const a = await app([signIn, open])
    const created = await a.request('/api/operator/keys', {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'k', owner: '0x00000000000000000000000000000000000000aa' }),
    })
    expect(created.status).toBe(201)
    expect((await created.json()).key).toMatch(/^parx/)
    expect(created.headers.get('cache-control')).toBe('no-store')
    expect((await a.request('/t/sign-in', { method: 'POST' })).headers.get('cache-control')).toBe('no-store')
    expect((await a.request('/t/open')).headers.get('cache-control')).toBeNull()
  })

  it('every route that can show a key, a webhook secret or a session is authenticated or flagged', () => {
    const shows = routes.filter(
      (r) => r.method === 'POST' && /keys|\/users|\/agents$|endpoints|siwe\/login|session/.test(r.path),
    )
    expect(shows.length).toBeGreaterThan(5)
    for (const r of shows) expect(r.auth !== 'open' || r.noStore, `${r.method} ${r.path}`).toBe(true)
    expect(routes.find((r) => r.path.endsWith('/siwe/login'))?.noStore).toBe(true)
  })
})
