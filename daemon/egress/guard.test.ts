import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Egress, egressGuard, egressRefusal } from './guard.js'

/**
 * The guard against loopback targets only (a broken guard really connects: never a link-local,
 * private or public address here). An internal service on 127.0.0.1 counts what reaches it.
 */
let server: Server
let port: number
let hits = 0
beforeAll(async () => {
  server = createServer((_req, res) => {
    hits++
    res.end('internal secret')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())))

/** Every spelling of "this machine" a URL can carry. */
const probes = (p: number) => [
  `http://127.0.0.1:${p}/`,
  `http://[::1]:${p}/`,
  `http://[::ffff:127.0.0.1]:${p}/`,
  `http://2130706433:${p}/`,
  `http://0.0.0.0:${p}/`,
  `http://localhost:${p}/`,
  `http://LOCALHOST.:${p}/`,
  `http://0x7f.1:${p}/`,
  `http://127.1:${p}/`,
]

const refusalOf = async (g: Egress, url: string) => {
  try {
    await (await g.fetch(url, { redirect: 'manual' })).text()
    return undefined
  } catch (e) {
    return egressRefusal(e)
  }
}

describe('egress guard (strict)', () => {
  it('refuses every loopback spelling at check and at connect; the internal service sees nothing', async () => {
    const g = egressGuard({ strict: true })
    hits = 0
    for (const url of probes(port)) {
      await expect(g.check(url), url).rejects.toMatchObject({ code: 'EGRESS_REFUSED', status: 403 })
      expect((await refusalOf(g, url))?.code, url).toBe('EGRESS_REFUSED')
    }
    expect(hits).toBe(0)
    await g.close()
  })

  it('a name that resolves to a public address at check and to loopback at connect (rebinding) is refused at connect', async () => {
    let calls = 0
    // The first answer is public (the check passes), every later one is loopback.
    const g = egressGuard({
      strict: true,
      lookup: async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1' }],
    })
    hits = 0
    await g.check(`http://rebind.test:${port}/`)
    expect((await refusalOf(g, `http://rebind.test:${port}/`))?.code).toBe('EGRESS_REFUSED')
    // A name with a public and an internal address is refused as a whole.
    const mixed = egressGuard({ strict: true, lookup: async () => [{ address: '93.184.216.34' }, { address: '::1' }] })
    await expect(mixed.check(`http://mixed.test:${port}/`)).rejects.toMatchObject({ code: 'EGRESS_REFUSED' })
    expect(hits).toBe(0)
    await Promise.all([g.close(), mixed.close()])
  })

  it('connects to the address it checked, not to a second resolution of the name', async () => {
    const seen: string[] = []
    // The name's only answer is the loopback service, admitted by the allow-list entry for its port:
    // the lookup is not even asked (allow-listed entries connect as usual).
    const g = egressGuard({
      strict: true,
      allow: [`svc.test:${port}`],
      lookup: async (h) => (seen.push(h), [{ address: '127.0.0.1' }]),
    })
    await expect(g.check(`http://svc.test:${port}/`)).resolves.toBeUndefined()
    expect(seen).toEqual([])
    await g.close()
  })

  it('the allow-list admits exactly one host:port; another port on the same host stays refused', async () => {
    const g = egressGuard({ strict: true, allow: [`127.0.0.1:${port}`] })
    hits = 0
    const ok = await g.fetch(`http://127.0.0.1:${port}/`, {})
    expect(await ok.text()).toBe('internal secret')
    expect(hits).toBe(1)
    const other = port === 65535 ? port - 1 : port + 1
    await expect(g.check(`http://127.0.0.1:${other}/`)).rejects.toMatchObject({ code: 'EGRESS_REFUSED' })
    expect((await refusalOf(g, `http://127.0.0.1:${other}/`))?.code).toBe('EGRESS_REFUSED')
    // The same service by another spelling is another entry: refused.
    for (const url of probes(port).filter(
      (u) =>
        !u.startsWith(`http://127.0.0.1:`) &&
        !u.includes('2130706433') &&
        !u.includes('0x7f.1') &&
        !u.includes('127.1:'),
    )) {
      await expect(g.check(url), url).rejects.toMatchObject({ code: 'EGRESS_REFUSED' })
    }
    expect(hits).toBe(1)
    // IPv6 entries are written in brackets and compared as URLs spell them.
    const v6 = egressGuard({ strict: true, allow: [`[::FFFF:127.0.0.1]:${port}`] })
    await expect(v6.check(`http://[::ffff:7f00:1]:${port}/`)).resolves.toBeUndefined()
    await Promise.all([g.close(), v6.close()])
  })

  it('refuses schemes other than http(s)', async () => {
    const g = egressGuard({ strict: true })
    await expect(g.check('file:///etc/passwd')).rejects.toMatchObject({ code: 'EGRESS_REFUSED' })
    await g.close()
  })
})

describe('egress guard (off: the local profile)', () => {
  it('reaches loopback sellers as before', async () => {
    const g = egressGuard({ strict: false })
    hits = 0
    await g.check(`http://localhost:${port}/`)
    expect(await (await g.fetch(`http://127.0.0.1:${port}/`, {})).text()).toBe('internal secret')
    expect(hits).toBe(1)
    await g.close()
  })
})
