import { Hono } from 'hono'
import pino from 'pino'
import { HttpRequestError } from 'viem'
import { describe, expect, it } from 'vitest'
import { BaseError } from '../../../src/errors/index.js'
import { registerSecretUrl } from '../../redact.js'
import { errorHandler } from './errors.js'

describe('errorHandler', () => {
  it("answers a BaseError built from an upstream's message without its URL, request body or credentials, and logs the whole", async () => {
    const url = 'https://user:SECRETPASS@rpc.example/v2/SECRETKEY123?apikey=SECRETQ'
    registerSecretUrl(url)
    const logged: unknown[] = []
    const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) })
    const app = new Hono()
    app.onError(errorHandler(log))
    app.get('/x', () => {
      const e = new HttpRequestError({ url, body: { method: 'eth_call' }, details: 'other side closed' })
      throw new BaseError('CHAIN_UNAVAILABLE', `base-sepolia did not answer (${e.message}); retry shortly`, {
        cause: e,
        fields: { node: url },
      })
    })
    const res = await app.request('/x')
    const text = await res.text()
    expect(res.status).toBe(503)
    expect(text).not.toMatch(/SECRET|Request body|URL:/)
    expect(JSON.parse(text)).toMatchObject({
      code: 'CHAIN_UNAVAILABLE',
      error: expect.stringContaining('other side closed'),
    })
    expect(JSON.stringify(logged)).toContain('SECRETKEY123')
  })
})
