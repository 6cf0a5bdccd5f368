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
  const url = new URL(`${d.urls.api}/dashboard/api${path}`)
  const text = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } }, (res) => {
      let data = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (data += d))
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data), headers: res.headers }))
    })
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
    const r = await call(hosted, '/siwe/login', { message, signature: await account.signMessage({ message }) }, { host: 'evil.example', 'x-forwarded-proto': 'https' })
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
    const r = await call(local, '/siwe/message', { address: fresh().address, chainId: local.services.base.chainId }, { host: 'evil.example:80' })
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
    const r = await call(local, '/siwe/login', { message, signature: await account.signMessage({ message }) }, { 'x-forwarded-proto': 'https' })
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
    const refused = await call(local, '/siwe/login', { message: edited, signature: await account.signMessage({ message: edited }) })
    expect(refused.body.error).toContain('is for evil.example')
    const again = await call(local, '/siwe/login', { message: original, signature: await account.signMessage({ message: original }) })
    expect(again.status).toBe(401)
    expect(again.body.error).toMatch(/nonce is unknown or already used/)
  })
})
