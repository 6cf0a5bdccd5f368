import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

let d: TestDaemon
const hash = `0x${'ab'.repeat(32)}`
// A K route (docs/swap-api.md "Authentication"): confirm needs a key whatever the hash.
const kRoute = `/api/base/confirm?hash=${hash}`

beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

// The 401 body of docs/swap-api.md "Authentication", plus the request id every error body carries (docs/operations.md "Request ids").
const unauthorized = {
  error: 'missing or invalid x-api-key',
  code: 'UNAUTHORIZED',
  requestId: expect.stringMatching(/^req_[0-9a-f]{20}$/),
}

describe('partner keys on K routes (enforced)', () => {
  it('rejects a missing key with the SPEC body', async () => {
    const r = await d.raw(kRoute)
    expect(r.status).toBe(401)
    expect(r.body).toEqual(unauthorized)
  })

  it('rejects a malformed and an unknown key', async () => {
    for (const key of ['nope', 'parx-XYZ', `parx-${'0'.repeat(32)}`, `other-${'a'.repeat(32)}`]) {
      const r = await d.raw(kRoute, { headers: { 'x-api-key': key } })
      expect(r.status, key).toBe(401)
      expect(r.body).toEqual(unauthorized)
    }
  })

  it('accepts an active key under any header case', async () => {
    const key = await d.partnerKey()
    expect(key).toMatch(/^parx-[0-9a-f]{32}$/)
    for (const name of ['x-api-key', 'X-API-KEY', 'X-Api-Key']) {
      const r = await d.raw(kRoute, { headers: { [name]: key } })
      expect(r.status, name).toBe(200)
      expect(r.body.status).toBe('unknown')
    }
  })

  it('does not accept the key as Authorization: Bearer', async () => {
    const key = await d.partnerKey()
    const r = await d.raw(kRoute, { headers: { authorization: `Bearer ${key}` } })
    expect(r.status).toBe(401)
    expect(r.body).toEqual(unauthorized)
  })

  it('stops accepting a key once deactivated or deleted, and keeps a deactivated key listed', async () => {
    const created = await d.call('/api/operator/keys', {
      body: { name: 'ci', owner: '0x00000000000000000000000000000000000000bb' },
      headers: d.operatorHeaders(),
    })
    expect((await d.raw(kRoute, { headers: { 'x-api-key': created.key } })).status).toBe(200)
    const off = await d.call(`/api/operator/keys/${created.id}/deactivate`, {
      method: 'POST',
      body: {},
      headers: d.operatorHeaders(),
    })
    expect(off.state).toBe('deactivated')
    expect((await d.raw(kRoute, { headers: { 'x-api-key': created.key } })).body).toEqual(unauthorized)
    const listed = await d.call('/api/operator/keys', {
      query: { owner: '0x00000000000000000000000000000000000000bb' },
      headers: d.operatorHeaders(),
    })
    expect(listed.keys.map((k: any) => [k.id, k.state])).toEqual([[created.id, 'deactivated']])
    expect(JSON.stringify(listed)).not.toContain(created.key)
    await d.call(`/api/operator/keys/${created.id}`, { method: 'DELETE', headers: d.operatorHeaders() })
    const after = await d.call('/api/operator/keys', {
      query: { owner: '0x00000000000000000000000000000000000000bb' },
      headers: d.operatorHeaders(),
    })
    expect(after.keys).toEqual([])
  })

  it('leaves open routes open', async () => {
    for (const path of ['/api/health', '/api/capabilities', '/api/config', '/api/readiness', '/api/base/info']) {
      expect((await d.raw(path)).status, path).toBe(200)
    }
  })
})

describe('operator routes', () => {
  it('reject a partner key with 401, sent either way, and point to status polling', async () => {
    const key = await d.partnerKey()
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      const r = await d.raw('/api/operator/keys', { headers })
      expect(r.status).toBe(401)
      expect(r.body.code).toBe('UNAUTHORIZED')
      expect(r.body.error).toMatch(/status/)
    }
  })

  it('reject a missing or wrong operator token', async () => {
    expect((await d.raw('/api/operator/keys')).status).toBe(401)
    expect(
      (await d.raw('/api/operator/keys', { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong' } }))
        .status,
    ).toBe(401)
    expect((await d.raw('/api/operator/keys', { headers: d.operatorHeaders() })).status).toBe(200)
  })
})

describe('soft launch (enforcement off)', () => {
  it('answers K routes without a key', async () => {
    const soft = await startTestDaemon({ flags: { auth: { enforce: false } } })
    try {
      expect((await soft.raw(kRoute)).status).toBe(200)
    } finally {
      await soft.close()
    }
  })
})
