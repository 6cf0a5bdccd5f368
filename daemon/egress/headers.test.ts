import { describe, expect, it } from 'vitest'
import { endToEnd, toBuyer, toUpstream } from './headers.js'

describe('paid endpoint header allow-lists', () => {
  it("buyer -> upstream keeps content negotiation and the buyer's own Authorization; drops cookies, platform keys, payment, hop-by-hop and Connection-named headers", () => {
    const out = toUpstream({
      cookie: 'parx_dashboard=s',
      'x-user-key': 'u',
      'x-agent-key': 'a',
      'x-api-key': 'k',
      'payment-signature': 'p',
      'x-payment': 'p',
      host: 'parx.example',
      connection: 'keep-alive, Accept-Language',
      'keep-alive': 'timeout=5',
      te: 'trailers',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic x',
      origin: 'https://evil.example',
      'accept-language': 'fr',
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: 'Bearer upstream-token',
      'x-request-id': 'r1',
    })
    expect(out).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: 'Bearer upstream-token',
      'x-request-id': 'r1',
    })
    // An MPP credential is for the platform, never the upstream.
    expect(toUpstream({ authorization: 'Payment id="1", credential="x"' })).toEqual({})
  })

  it('upstream -> buyer keeps what describes the content; drops Set-Cookie, Location, WWW-Authenticate, caching, CORS and hop-by-hop', () => {
    const h = new Headers({
      'set-cookie': 'parx_dashboard=x',
      location: '/api/operator/users',
      'www-authenticate': 'Payment id="x"',
      'cache-control': 'public',
      'access-control-allow-origin': '*',
      'content-security-policy': 'default-src *',
      connection: 'close, etag',
      'transfer-encoding': 'chunked',
      'content-type': 'text/html',
      etag: '"1"',
      'content-language': 'fr',
    })
    expect(toBuyer(h)).toEqual({ 'content-type': 'text/html', 'content-language': 'fr' })
  })

  it("pay's pass-through keeps end-to-end headers (Set-Cookie included, inside the JSON answer) and drops hop-by-hop ones", () => {
    const h = new Headers({
      'set-cookie': 'seller=1',
      'content-type': 'application/json',
      connection: 'x-hop',
      'x-hop': '1',
      'keep-alive': 'timeout=5',
      'x-seller': 'ok',
    })
    expect(endToEnd(h)).toEqual({ 'set-cookie': 'seller=1', 'content-type': 'application/json', 'x-seller': 'ok' })
  })
})
