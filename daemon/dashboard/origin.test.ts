import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { type PublicOrigin, parsePublicOrigin } from '../../src/config/public-origin.js'
import { BaseError } from '../../src/errors/index.js'
import { type DashboardOrigin, dashboardOrigin } from './origin.js'

/** What a route sees of the origin for a request with these headers (in-process, no socket). */
async function seen(origin: DashboardOrigin, headers: Record<string, string>, url = 'http://127.0.0.1:8420/x') {
  const app = new Hono()
  app.onError((e, c) => c.json({ code: e instanceof BaseError ? e.code : 'INTERNAL', error: e.message }, 401))
  app.get('/x', (c) => c.json({ ...origin.siwe(c), secure: origin.secure(c) }))
  return (await app.request(url, { headers })).json()
}

const configured = parsePublicOrigin('https://pay.example.com') as PublicOrigin

describe('dashboardOrigin', () => {
  it('with a public origin, binds it whatever Host and X-Forwarded-Proto say; Secure when https', async () => {
    const o = dashboardOrigin(configured, () => true)
    expect(await seen(o, { host: 'evil.example', 'x-forwarded-proto': 'http' })).toEqual({
      domain: 'pay.example.com',
      uri: 'https://pay.example.com/dashboard',
      secure: true,
    })
    const plain = dashboardOrigin(parsePublicOrigin('http://127.0.0.1:8420') as PublicOrigin)
    expect(await seen(plain, { host: '127.0.0.1:8420', 'x-forwarded-proto': 'https' })).toEqual({
      domain: '127.0.0.1:8420',
      uri: 'http://127.0.0.1:8420/dashboard',
      secure: false,
    })
  })

  it('without one, takes a loopback or IP Host and refuses a DNS name (DNS rebinding)', async () => {
    const o = dashboardOrigin(undefined)
    for (const host of ['127.0.0.1:8420', 'localhost:8420', '[::1]:8420', '192.168.1.5:8420', '[fd00::5]:8420']) {
      expect(await seen(o, { host })).toEqual({ domain: host, uri: `http://${host}/dashboard`, secure: false })
    }
    for (const host of ['evil.example', 'evil.example:8420', '127.0.0.1.nip.io:8420', 'localhost.evil.example']) {
      expect(await seen(o, { host })).toMatchObject({
        code: 'SIWE_REJECTED',
        error: expect.stringContaining('PARX_PUBLIC_ORIGIN'),
      })
    }
  })

  it('without one, believes X-Forwarded-Proto only when the request came through a trusted proxy', async () => {
    const untrusted = dashboardOrigin(undefined)
    expect(await seen(untrusted, { host: '127.0.0.1:8420', 'x-forwarded-proto': 'https' })).toMatchObject({
      uri: 'http://127.0.0.1:8420/dashboard',
      secure: false,
    })
    const trusted = dashboardOrigin(undefined, () => true)
    expect(await seen(trusted, { host: '127.0.0.1:8420', 'x-forwarded-proto': 'https' })).toMatchObject({
      uri: 'https://127.0.0.1:8420/dashboard',
      secure: true,
    })
  })
})
