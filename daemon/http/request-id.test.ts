import { describe, expect, it } from 'vitest'
import { currentRequestId, inRequest, newRequestId, requestIdFrom } from './request-id.js'

describe('request ids', () => {
  it("keeps a caller's sane id", () => {
    for (const id of ['abc', 'req_123', '3f2b9c1e-8d7a-4e5f-9a0b-1c2d3e4f5a6b', 'trace:span.1', 'x'.repeat(128)])
      expect(requestIdFrom(id)).toBe(id)
  })

  it('replaces an empty, too long or oddly spelled id with a new one', () => {
    for (const id of [undefined, null, '', 'x'.repeat(129), 'has space', 'new\nline', '<script>', 'ünï', 'a/b']) {
      const got = requestIdFrom(id)
      expect(got).not.toBe(id)
      expect(got).toMatch(/^req_[0-9a-f]{20}$/)
    }
  })

  it('makes different ids', () => {
    expect(new Set(Array.from({ length: 100 }, newRequestId)).size).toBe(100)
  })

  it('names the request to everything that runs inside it, across awaits, and nothing outside', async () => {
    expect(currentRequestId()).toBeUndefined()
    const seen = await inRequest('req_a', async () => {
      await new Promise((r) => setTimeout(r, 1))
      return currentRequestId()
    })
    expect(seen).toBe('req_a')
    expect(currentRequestId()).toBeUndefined()
  })
})
