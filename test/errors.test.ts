import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  d.raw('/api/operator/keys', { method: 'POST', body, headers: { ...headers, ...d.operatorHeaders() } })

describe('error bodies', () => {
  it('unknown routes answer 404 with a code', async () => {
    const r = await d.raw('/api/nope')
    expect(r.status).toBe(404)
    expect(r.body).toEqual({
      error: 'no route GET /api/nope; every route is in GET /api/openapi.json',
      code: 'NOT_FOUND',
      requestId: expect.any(String),
    })
  })

  it('malformed JSON answers 400 MALFORMED_JSON', async () => {
    for (const body of ['{', 'not json', '{"name": }']) {
      const r = await post(body)
      expect(r.status, body).toBe(400)
      expect(r.body.code).toBe('MALFORMED_JSON')
    }
  })

  it('missing and wrong-typed fields name the field', async () => {
    const missing = await post(JSON.stringify({ owner: '0x00000000000000000000000000000000000000aa' }))
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({ error: "missing field 'name'", code: 'BAD_REQUEST', requestId: expect.any(String) })
    const wrong = await post(JSON.stringify({ name: 5, owner: '0x00000000000000000000000000000000000000aa' }))
    expect(wrong.body.code).toBe('BAD_REQUEST')
    expect(wrong.body.error).toMatch(/'name'/)
    const notObject = await post('[1,2]')
    expect(notObject.status).toBe(400)
    expect(notObject.body.code).toBe('BAD_REQUEST')
  })

  it('huge bodies answer 413 without being parsed', async () => {
    const r = await post(JSON.stringify({ name: 'x'.repeat(200_000) }))
    expect(r.status).toBe(413)
    expect(r.body.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('never answers 500 or a stack trace for bad input', async () => {
    const probes = [
      d.raw('/api/base/balance?owner=%00%ff'),
      d.raw('/api/base/confirm?hash=0xzz', { headers: { 'x-api-key': await d.partnerKey() } }),
      d.raw('/api/local/faucet', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"to":"0x12","amount":"-5"}',
      }),
      d.raw('/api/local/faucet', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"to":"0x00000000000000000000000000000000000000aa","token":"USDC","amount":"1.0000001"}',
      }),
      d.raw('/api/operator/keys/does-not-exist/deactivate', { method: 'POST', headers: d.operatorHeaders() }),
    ]
    for (const r of await Promise.all(probes)) {
      expect(r.status).toBeGreaterThanOrEqual(400)
      expect(r.status).toBeLessThan(500)
      expect(Object.keys(r.body).sort()).toEqual(['code', 'error', 'requestId'])
      expect(r.body.requestId).toBe(r.headers.get('x-request-id'))
      expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:\d+/)
    }
  })
})
