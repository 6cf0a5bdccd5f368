import { execFile } from 'node:child_process'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { streamedUpload } from '../../test/helpers/streamed-upload.js'
import { authService } from '../auth/service.js'
import { verdictCache } from '../auth/verdict-cache.js'
import { createApiServer } from './api-server.js'
import { type AppDeps, createApp } from './app.js'
import { readRawBody } from './parse.js'
import { route } from './route.js'

// Body caps over a real socket (the Node request, keep-alive, Connection: close), on the app and
// API server the daemon runs, with two routes: a JSON one (cap 1 KiB) and a raw one (cap 64 KiB).
const echo = route({
  method: 'POST',
  path: '/json',
  auth: 'open',
  surface: 'discovery',
  maxBody: 1024,
  body: z.record(z.unknown()),
  handler: (c, _s, { body }) => c.json({ got: body }),
})
const raw = route({
  method: 'POST',
  path: '/raw',
  auth: 'open',
  surface: 'discovery',
  maxBody: 64 * 1024,
  handler: async (c) => c.json({ bytes: (await readRawBody(c, 64 * 1024)).byteLength }),
})
const ok = route({
  method: 'GET',
  path: '/ok',
  auth: 'open',
  surface: 'discovery',
  handler: (c) => c.json({ ok: true }),
})

const deps = (): AppDeps => ({
  surfaces: { discovery: {} as never },
  auth: authService({
    auth: { enforce: true, keyPrefix: 'parx' },
    operatorToken: 'x'.repeat(24),
    verdicts: verdictCache({ lookup: async () => undefined }),
  }),
  log: pino({ level: 'silent' }),
  limiter: { check: () => {} } as unknown as AppDeps['limiter'],
  flowEnabled: () => true,
  routes: [echo, raw, ok],
})

let server: http.Server
let hsts: http.Server
let port: number
let hstsPort: number
const listen = (s: http.Server) =>
  new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as AddressInfo).port)))

beforeAll(async () => {
  const app = createApp(deps())
  server = createApiServer(app.fetch)
  hsts = createApiServer(app.fetch, { hsts: true })
  port = await listen(server)
  hstsPort = await listen(hsts)
})
afterAll(async () => {
  for (const s of [server, hsts]) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** `total` bytes streamed to the test server (test/helpers/streamed-upload.ts). */
const post = (agent: http.Agent, path: string, total: number, opts: { declare?: boolean; holdBody?: boolean } = {}) =>
  streamedUpload(agent, { port, path }, total, { ...opts, contentType: 'application/json', chunkBytes: 16 * 1024 })

const run = promisify(execFile)

/** 20 clients, one after the other, each writing its whole body (GET, chunked) before it reads; prints each status or error code. */
const WRITE_WHOLE_BODY = `
import http from 'node:http'
const [port, path, count, size] = process.argv.slice(1)
const out = []
for (let i = 0; i < Number(count); i++) {
  out.push(await new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), path, method: 'GET', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
    })
    req.on('error', (e) => resolve(e.code ?? e.message))
    const chunk = Buffer.alloc(16384, 0x20)
    let sent = 0
    const pump = () => {
      while (sent < Number(size)) {
        sent += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
      req.end()
    }
    pump()
  }))
}
console.log(JSON.stringify(out))
`

const get = (agent: http.Agent, p = port) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: p, path: '/ok', agent }, (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }))
      })
      .on('error', reject)
  })

describe('request bodies are capped while they stream', () => {
  it('a chunked body over the cap answers 413 with Connection: close, and the next request on the keep-alive agent succeeds (no reset)', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (let i = 0; i < 20; i++) {
      for (const size of [2_000, 100_000, 20_000_000]) {
        const r = await post(agent, '/json', size)
        expect(r.status, `${size} bytes`).toBe(413)
        expect(r.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
        expect(r.headers.connection).toBe('close')
        expect((await get(agent)).status).toBe(200)
      }
    }
    agent.destroy()
  })

  it('a declared length over the cap answers 413 before a byte of the body is sent', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const r = await post(agent, '/raw', 500 * 2 ** 20, { declare: true, holdBody: true })
    expect(r).toMatchObject({ status: 413, sent: 0, body: { code: 'PAYLOAD_TOO_LARGE' } })
    expect(r.headers.connection).toBe('close')
    expect((await get(agent)).status).toBe(200)
    agent.destroy()
  })

  it('a client that writes its whole (moderately oversized) body before reading still reads the 413', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (const declare of [true, false]) {
      const r = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/raw',
            method: 'POST',
            agent,
            headers: declare ? {} : { 'transfer-encoding': 'chunked' },
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }))
          },
        )
        req.on('error', reject)
        req.end(Buffer.alloc(2 * 2 ** 20, 0x20))
      })
      expect(r).toEqual({ status: 413, connection: 'close' })
      expect((await get(agent)).status).toBe(200)
    }
    agent.destroy()
  })

  it('bodies within the cap are read whole and the connection stays open for the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const a = await post(agent, '/raw', 64 * 1024)
    expect(a).toMatchObject({ status: 200, body: { bytes: 64 * 1024 } })
    expect(a.headers.connection).toBe('keep-alive')
    const b = await post(agent, '/raw', 10, { declare: true })
    expect(b).toMatchObject({ status: 200, body: { bytes: 10 } })
    agent.destroy()
  })

  it('in-process (app.request, no Node request) the same cap holds on the fetch body', async () => {
    const app = createApp(deps())
    const stream = new ReadableStream({
      pull(ctrl) {
        ctrl.enqueue(new Uint8Array(16 * 1024))
      },
    })
    const r = await app.request('/raw', { method: 'POST', body: stream, duplex: 'half' } as RequestInit)
    expect(r.status).toBe(413)
    expect(await r.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
  })

  it('a body the request never had read (1 MiB streamed with a GET) does not cut the answer: 20 of 20 clients in another process read it (lingering close)', async () => {
    // In another process: in this one the client's reads and the server's close take turns on one
    // event loop, and the reset that cuts the answer (the client's body left unread at the close) never wins.
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      WRITE_WHOLE_BODY,
      String(port),
      '/ok',
      '20',
      String(2 ** 20),
    ])
    expect(JSON.parse(stdout)).toEqual(Array(20).fill(200))
  })

  it('with an https public origin every answer carries Strict-Transport-Security; without, none', async () => {
    const agent = new http.Agent()
    expect((await get(agent, hstsPort)).headers['strict-transport-security']).toBe('max-age=31536000')
    expect((await get(agent, port)).headers['strict-transport-security']).toBeUndefined()
    agent.destroy()
  })
})
