import http from 'node:http'
import { SiweMessage } from 'siwe'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * Issue 25 item 4: sign-in bound to the configured origin. A daemon with a public origin writes and
 * checks the EIP-4361 domain and URI from it alone, so a message a phishing page had signed for
 * its own domain is refused whatever Host the login carries; a refused login spends its nonce.
 * Without one (local profile) only a loopback or IP Host is signed in at (no DNS rebinding), and
 * X-Forwarded-Proto from an untrusted peer changes nothing.
 */
let hosted: TestDaemon
let local: TestDaemon
const ORIGIN = 'https://pay.example.com'

beforeAll(async () => {
  hosted = await startTestDaemon({ env: { PARX_PUBLIC_ORIGIN: ORIGIN } })
  local = await startTestDaemon()
}, 180_000)
afterAll(async () => {
  await hosted?.close()
  await local?.close()
})

const fresh = () => privateKeyToAccount(generatePrivateKey())
type Answer = { status: number; body: any; headers: http.IncomingHttpHeaders }

/** A dashboard JSON call with the headers a browser could not forge but a script can (Host, X-Forwarded-Proto). */
function call(d: TestDaemon, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(d, path, JSON.stringify(body), { 'content-type': 'application/json', ...headers })
}

/** Any body with any headers (Origin, Sec-Fetch-Site, Content-Type: what a browser sends for a page elsewhere). */
function send(
  d: TestDaemon,
  path: string,
  text: string,
  headers: Record<string, string>,
  method = 'POST',
): Promise<Answer> {
  const url = new URL(`${d.urls.api}/dashboard/api${path}`)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: { 'content-length': Buffer.byteLength(text), ...headers },
      },
      (res) => {
        let data = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (data += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data), headers: res.headers }))
      },
    )
    req.on('error', reject)
    req.end(text)
  })
}

const messageFor = async (d: TestDaemon, address: string, headers: Record<string, string> = {}) => {
  const r = await call(d, '/siwe/message', { address, chainId: d.services.base.chainId }, headers)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return new SiweMessage(r.body.message as string)
}

describe('with a public origin configured', () => {
  it('writes the message for the configured origin, whatever Host the request carries', async () => {
    const m = await messageFor(hosted, fresh().address, { host: 'evil.example', 'x-forwarded-proto': 'http' })
    expect(m.domain).toBe('pay.example.com')
    expect(m.uri).toBe(`${ORIGIN}/dashboard`)
  })

  it('refuses a message for evil.example sent with Host: evil.example (SIWE_REJECTED)', async () => {
    const account = fresh()
    const m = await messageFor(hosted, account.address, { host: 'evil.example' })
    // What a phishing page would have the victim sign: its own domain and URI, parx's nonce.
    m.domain = 'evil.example'
    m.uri = 'https://evil.example/dashboard'
    const message = m.prepareMessage()
    const r = await call(
      hosted,
      '/siwe/login',
      { message, signature: await account.signMessage({ message }) },
      { host: 'evil.example', 'x-forwarded-proto': 'https' },
    )
    expect(r.status).toBe(401)
    expect(r.body.code).toBe('SIWE_REJECTED')
    expect(r.body.error).toContain('the message is for evil.example, not pay.example.com')
    expect(r.headers['set-cookie']).toBeUndefined()
  })

  it('signs in with the message it wrote: the cookie is Secure and answers carry HSTS (the origin is https)', async () => {
    const account = fresh()
    const message = (await messageFor(hosted, account.address)).prepareMessage()
    const r = await call(hosted, '/siwe/login', { message, signature: await account.signMessage({ message }) })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body.wallet).toBe(account.address)
    expect(String(r.headers['set-cookie'])).toMatch(/parx_dashboard=[^;]+;.*Secure/)
    expect(r.headers['strict-transport-security']).toBe('max-age=31536000')
  })

  it('a login refused for its signature spends the nonce: the right signature afterwards is refused too', async () => {
    const account = fresh()
    const message = (await messageFor(hosted, account.address)).prepareMessage()
    const bad = await call(hosted, '/siwe/login', { message, signature: await fresh().signMessage({ message }) })
    expect(bad.status).toBe(401)
    expect(bad.body.code).toBe('SIWE_REJECTED')
    const good = await call(hosted, '/siwe/login', { message, signature: await account.signMessage({ message }) })
    expect(good.status).toBe(401)
    expect(good.body.code).toBe('SIWE_REJECTED')
    expect(good.body.error).toMatch(/nonce is unknown or already used/)
  })
})

describe('local profile without a public origin', () => {
  it('refuses to write a message for a DNS name (DNS rebinding), and answers at 127.0.0.1 as before', async () => {
    const r = await call(
      local,
      '/siwe/message',
      { address: fresh().address, chainId: local.services.base.chainId },
      { host: 'evil.example:80' },
    )
    expect(r.status).toBe(401)
    expect(r.body.code).toBe('SIWE_REJECTED')
    expect(r.body.error).toContain('PARX_PUBLIC_ORIGIN')
    const host = new URL(local.urls.api).host
    const m = await messageFor(local, fresh().address)
    expect([m.domain, m.uri]).toEqual([host, `http://${host}/dashboard`])
  })

  it('ignores X-Forwarded-Proto from a peer that is not a trusted proxy: http URI, no Secure cookie, no HSTS', async () => {
    const account = fresh()
    const host = new URL(local.urls.api).host
    const m = await messageFor(local, account.address, { 'x-forwarded-proto': 'https' })
    expect(m.uri).toBe(`http://${host}/dashboard`)
    const message = m.prepareMessage()
    const r = await call(
      local,
      '/siwe/login',
      { message, signature: await account.signMessage({ message }) },
      { 'x-forwarded-proto': 'https' },
    )
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(String(r.headers['set-cookie'])).not.toMatch(/Secure/)
    expect(r.headers['strict-transport-security']).toBeUndefined()
  })

  it('a message for another domain is refused, and its nonce is spent by the refusal', async () => {
    const account = fresh()
    const m = await messageFor(local, account.address)
    const original = m.prepareMessage()
    m.domain = 'evil.example'
    const edited = m.prepareMessage()
    const refused = await call(local, '/siwe/login', {
      message: edited,
      signature: await account.signMessage({ message: edited }),
    })
    expect(refused.body.error).toContain('is for evil.example')
    const again = await call(local, '/siwe/login', {
      message: original,
      signature: await account.signMessage({ message: original }),
    })
    expect(again.status).toBe(401)
    expect(again.body.error).toMatch(/nonce is unknown or already used/)
  })
})

/**
 * Issue 39 item 5: no cross-site sign-in or writes. A page elsewhere can make the victim's browser
 * post to the daemon without asking it first (a form with enctype=text/plain, a no-cors fetch):
 * such a post of the attacker's own signed SIWE message would sign the victim in as the attacker,
 * who would then see the agents and keys the victim creates. Bodies are parsed only as JSON under
 * a JSON Content-Type (415), and sign-in and session changes are taken only from the dashboard's
 * own origin, by Origin or, without it, Sec-Fetch-Site (403 ORIGIN_REJECTED).
 */
describe('cross-site sign-in and changes', () => {
  const EVIL = 'https://evil.example'
  const own = (d: TestDaemon) => (d === hosted ? ORIGIN : d.urls.api)
  /** What `<form method=post enctype=text/plain>` with one field named `{"message":…,"signature":…,"x":"` and value `"}` sends. */
  const formPost = (signed: { message: string; signature: string }) =>
    `${JSON.stringify({ ...signed, x: '' }).slice(0, -2)}="}`
  const signedBy = async (d: TestDaemon, account = fresh()) => {
    const message = (await messageFor(d, account.address)).prepareMessage()
    return { message, signature: await account.signMessage({ message }) }
  }

  for (const which of ['hosted', 'local'] as const) {
    const daemon = () => (which === 'hosted' ? hosted : local)

    it(`${which}: the attacker's signed message posted as a text/plain form from another site is refused, no cookie set, its nonce unspent`, async () => {
      const d = daemon()
      const attacker = await signedBy(d)
      expect(JSON.parse(formPost(attacker))).toMatchObject(attacker)
      const crossSite = await send(d, '/siwe/login', formPost(attacker), {
        'content-type': 'text/plain',
        origin: EVIL,
        'sec-fetch-site': 'cross-site',
      })
      expect(crossSite.status, JSON.stringify(crossSite.body)).toBe(403)
      expect(crossSite.body.code).toBe('ORIGIN_REJECTED')
      expect(crossSite.headers['set-cookie']).toBeUndefined()
      // Either rule alone refuses it: a browser that sent only Sec-Fetch-Site, and a text/plain body from the page itself.
      const fetchSite = await send(d, '/siwe/login', JSON.stringify(attacker), {
        'content-type': 'application/json',
        'sec-fetch-site': 'same-site',
      })
      expect([fetchSite.status, fetchSite.body.code, fetchSite.headers['set-cookie']]).toEqual([
        403,
        'ORIGIN_REJECTED',
        undefined,
      ])
      const plain = await send(d, '/siwe/login', JSON.stringify(attacker), {
        'content-type': 'text/plain',
        origin: own(d),
      })
      expect([plain.status, plain.body.code, plain.headers['set-cookie']]).toEqual([
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        undefined,
      ])
      const untyped = await send(d, '/siwe/login', JSON.stringify(attacker), {})
      expect([untyped.status, untyped.body.code, untyped.headers['set-cookie']]).toEqual([
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        undefined,
      ])
      // None of them reached the check of the message: it still signs in, from the dashboard's own page.
      const mine = await call(d, '/siwe/login', attacker, { origin: own(d), 'sec-fetch-site': 'same-origin' })
      expect(mine.status, JSON.stringify(mine.body)).toBe(200)
      expect(String(mine.headers['set-cookie'])).toMatch(/parx_dashboard=[^;]+/)
    })

    it(`${which}: a message is written only for the dashboard's own page`, async () => {
      const d = daemon()
      const body = { address: fresh().address, chainId: d.services.base.chainId }
      expect(await call(d, '/siwe/message', body, { origin: EVIL })).toMatchObject({
        status: 403,
        body: { code: 'ORIGIN_REJECTED' },
      })
      expect(await call(d, '/siwe/message', body, { origin: 'null' })).toMatchObject({
        status: 403,
        body: { code: 'ORIGIN_REJECTED' },
      })
      expect(await call(d, '/siwe/message', body, { origin: own(d) })).toMatchObject({ status: 200 })
    })

    it(`${which}: a change with the session's cookie and CSRF token is refused from another origin, and made from the dashboard's`, async () => {
      const d = daemon()
      const signedIn = await call(d, '/siwe/login', await signedBy(d), { origin: own(d) })
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200)
      const session = {
        cookie: String(signedIn.headers['set-cookie']).split(';')[0]!,
        'x-csrf-token': signedIn.body.csrfToken as string,
        'content-type': 'application/json',
      }
      const create = (headers: Record<string, string>) =>
        send(d, '/partner-keys', JSON.stringify({ name: 'k' }), { ...session, ...headers })
      const hostile: Record<string, string>[] = [
        { origin: EVIL },
        { origin: 'null' },
        { origin: `${own(d)}.evil.example` },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ]
      for (const headers of hostile) {
        const r = await create(headers)
        expect([r.status, r.body.code], JSON.stringify(headers)).toEqual([403, 'ORIGIN_REJECTED'])
      }
      const logout = await send(d, '/logout', '', { ...session, origin: EVIL })
      expect([logout.status, logout.body.code]).toEqual([403, 'ORIGIN_REJECTED'])
      const listed = await send(d, '/partner-keys', '', { cookie: session.cookie, origin: EVIL }, 'GET')
      expect(listed).toMatchObject({ status: 200, body: { keys: [] } })
      expect(await create({ origin: own(d), 'sec-fetch-site': 'same-origin' })).toMatchObject({ status: 200 })
      // A request with neither header is no browser's: the CLI or a script, which the cookie and CSRF token cover.
      expect(await create({})).toMatchObject({ status: 200 })
    })
  }

  it('local: another loopback spelling of the daemon is another origin', async () => {
    const port = new URL(local.urls.api).port
    const r = await call(
      local,
      '/siwe/message',
      { address: fresh().address, chainId: local.services.base.chainId },
      { origin: `http://localhost:${port}` },
    )
    expect([r.status, r.body.code]).toEqual([403, 'ORIGIN_REJECTED'])
    const asLocalhost = await call(
      local,
      '/siwe/message',
      { address: fresh().address, chainId: local.services.base.chainId },
      { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    )
    expect(asLocalhost.status).toBe(200)
  })
})
