import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { getBounded } from './fetch-bounded.js'

const servers: http.Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A loopback server on a free port; resolves with its URL. */
async function serve(handler: http.RequestListener): Promise<URL> {
  const s = http.createServer(handler)
  servers.push(s)
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  return new URL(`http://127.0.0.1:${(s.address() as AddressInfo).port}/discovery/resources`)
}

const opts = { maxBytes: 64 * 1024, timeoutMs: 10_000 }

describe('getBounded (parx discover --facilitator)', () => {
  it('refuses a redirect and never asks where it points', async () => {
    let followed = 0
    const target = await serve((_req, res) => {
      followed++
      res.end('{"items":[]}')
    })
    for (const status of [301, 302, 307, 308]) {
      const from = await serve((_req, res) => {
        res.writeHead(status, { location: target.href })
        res.end()
      })
      await expect(getBounded(from, opts)).rejects.toThrow(
        new RegExp(`redirect \\(HTTP ${status} to ${target.href}\\); redirects are not followed`),
      )
    }
    expect(followed).toBe(0)
    // The same server answered directly is read.
    expect(await getBounded(target, opts)).toMatchObject({ status: 200, text: '{"items":[]}' })
  })

  it('cuts off a streamed answer past maxBytes, and refuses a declared one up front', async () => {
    let written = 0
    const streaming = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(16 * 1024, 0x20)
      const pump = () => {
        while (!res.destroyed && written < 100 * 1024 * 1024) {
          written += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => (written = Math.min(written, 100 * 1024 * 1024)))
      pump()
    })
    await expect(getBounded(streaming, opts)).rejects.toThrow(/larger than the 65536 bytes/)
    expect(written).toBeLessThan(100 * 1024 * 1024)
    const declared = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) })
      res.write(Buffer.alloc(1024))
    })
    await expect(getBounded(declared, opts)).rejects.toThrow(/declares 10485760 bytes/)
  })
})
