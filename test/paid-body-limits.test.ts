import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PAID_MAX_BODY } from '../daemon/http/routes/platform/paid.js'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { serveReady } from './helpers/serve-process.js'
import { streamedUpload } from './helpers/streamed-upload.js'

/**
 * Issue 25 item 3: a buyer's body to `/paid/:id` is capped while it streams. A real `parx serve`
 * (its own process, so its resident set is its own) and a real seller endpoint: 500 MB sent to it
 * answer 413 and move the daemon's memory by less than 50 MB (main grew by up to 1.5 GB), and a
 * keep-alive client's next request is not reset.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'parx-paid-body-'))
let daemon: Awaited<ReturnType<typeof serveReady>>
let upstream: http.Server
let upstreamHits = 0
let paid: URL

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${daemon.child.pid}/status`, 'utf8'))![1]) / 1024

beforeAll(async () => {
  daemon = await serveReady(['--data-dir', dataDir, '--port', '0'])
  upstream = http.createServer((_req, res) => {
    upstreamHits++
    res.end('{"data":"upstream"}')
  })
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  const api: string = daemon.ready.urls.api
  const operatorToken = JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')).operatorToken
  const { userKey } = await createPlatformClient({ url: api, operatorToken }).createUser({ body: { name: 'seller' } })
  const seller = createPlatformClient({ url: api, userKey })
  const e = await seller.createEndpoint({
    body: {
      upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`,
      price: '0.01',
      network: 'local-base',
      token: 'PUSD',
      payTo: '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a',
    },
  })
  paid = new URL(e.url)
}, 120_000)
afterAll(async () => {
  await daemon?.stop()
  upstream?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

/** `total` bytes streamed to the paid endpoint (test/helpers/streamed-upload.ts). */
const upload = (agent: http.Agent, total: number, opts: { declare?: boolean; holdBody?: boolean } = {}) =>
  streamedUpload(agent, { port: Number(paid.port), path: paid.pathname }, total, opts)

const unpaidGet = (agent: http.Agent) =>
  new Promise<number>((resolve, reject) => {
    http
      .get({ host: paid.hostname, port: paid.port, path: paid.pathname, agent }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode!))
      })
      .on('error', reject)
  })

describe('POST /paid/:id bodies are capped while they stream', () => {
  it('500 MB streamed (no Content-Length) answer 413 with Connection: close; the daemon grows by less than 50 MB', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    // Warm: the endpoint's payment requirements are built on first use.
    for (let i = 0; i < 3; i++) expect(await unpaidGet(agent)).toBe(402)
    const before = rssMiB()
    const r = await upload(agent, 500 * 2 ** 20)
    const after = rssMiB()
    console.info(
      `paid-body-limits: 500 MB streamed, ${(r.sent / 2 ** 20).toFixed(1)} MiB written before the 413; daemon RSS ${before.toFixed(1)} -> ${after.toFixed(1)} MiB`,
    )
    expect(r.status).toBe(413)
    expect(r.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' })
    expect(r.body.error).toContain(String(PAID_MAX_BODY))
    expect(r.headers.connection).toBe('close')
    expect(after - before, `RSS ${before.toFixed(1)} -> ${after.toFixed(1)} MiB`).toBeLessThan(50)
    // The client stopped soon after the cap: the answer did not wait for the whole upload.
    expect(r.sent).toBeLessThan(100 * 2 ** 20)
    expect(upstreamHits).toBe(0)
    agent.destroy()
  }, 120_000)

  it('a declared Content-Length over the cap answers 413 before a byte of the body is sent', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    const before = rssMiB()
    const r = await upload(agent, 500 * 2 ** 20, { declare: true, holdBody: true })
    expect(r).toMatchObject({ status: 413, sent: 0, body: { code: 'PAYLOAD_TOO_LARGE' } })
    expect(r.headers.connection).toBe('close')
    expect(rssMiB() - before).toBeLessThan(50)
    agent.destroy()
  })

  it('keep-alive: after an oversized body on the socket the next request succeeds, never reset', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (let i = 0; i < 10; i++) {
      const big = await upload(agent, 4 * PAID_MAX_BODY, { declare: i % 2 === 0 })
      expect(big.status).toBe(413)
      expect(big.headers.connection).toBe('close')
      expect(await unpaidGet(agent)).toBe(402)
    }
    // A body within the cap is read and the unpaid answer is the usual 402, on a kept-alive socket.
    const small = await upload(agent, 1000, { declare: true })
    expect(small.status).toBe(402)
    expect(small.headers.connection).toBe('keep-alive')
    agent.destroy()
  }, 60_000)
})
