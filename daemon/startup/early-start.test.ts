import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load.js'
import { statePathOf } from '../chains/embedded/state-check.js'
import { startEarly } from './early-start.js'

const tmp = mkdtempSync(join(tmpdir(), 'parx-early-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const config = (dataDir: string, env: Record<string, string> = {}) =>
  loadConfig({ env, file: {}, flags: { port: 0, dataDir, logLevel: 'silent' } })

/** eth_chainId of a node, or undefined while it does not answer. */
function chainIdAt(url: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d))
      res.on('end', () => resolve((JSON.parse(body) as { result?: string }).result))
    })
    req.once('error', () => resolve(undefined))
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
  })
}

async function answering(url: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const id = await chainIdAt(url)
    if (id) return id
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`${url} never answered`)
}

describe('startEarly (what `parx serve` does while the daemon loads)', () => {
  it('locks the data dir and spawns both local anvils; releasing kills the ones nothing took over', async () => {
    const dataDir = join(tmp, 'local')
    const early = await startEarly(config(dataDir))
    try {
      // The lock is taken: a second start on the same data dir is refused before it spawns anything.
      await expect(startEarly(config(dataDir))).rejects.toMatchObject({ code: 'DATA_DIR_IN_USE' })
      expect(Object.keys(early.anvils!).sort()).toEqual(['local-base', 'local-radius'])
      const spawned = await Promise.all(Object.values(early.anvils!))
      for (const a of spawned) {
        expect(await answering(`http://${a.host}:${a.port}`)).toMatch(/^0x/)
        expect(readFileSync(a.pidFile!, 'utf8')).toBe(String(a.child.pid))
      }
      // One taken over (as startAnvil does): release leaves it running and stops the other.
      spawned[0]!.adopted = true
      await early.release()
      expect(spawned[1]!.child.exitCode !== null || spawned[1]!.child.signalCode !== null).toBe(true)
      expect(existsSync(spawned[1]!.pidFile!)).toBe(false)
      expect(await chainIdAt(`http://${spawned[1]!.host}:${spawned[1]!.port}`)).toBeUndefined()
      expect(await chainIdAt(`http://${spawned[0]!.host}:${spawned[0]!.port}`)).toMatch(/^0x/)
      spawned[0]!.child.kill('SIGKILL')
    } finally {
      early.lock.release()
    }
    // Released: the next start locks it.
    const again = await startEarly(config(dataDir))
    await Promise.all(Object.values(again.anvils!))
    await again.release()
  })

  it('refuses a config that cannot work before it creates the data dir or spawns a chain', async () => {
    const dataDir = join(tmp, 'refused')
    await expect(startEarly(config(dataDir, { PARX_PUBLIC_ORIGIN: 'https://parx.example/app' }))).rejects.toMatchObject(
      { code: 'CONFIG_INVALID' },
    )
    expect(existsSync(dataDir)).toBe(false)
  })

  it('refuses an unreadable chain state file after locking, and releases the lock', async () => {
    const dataDir = join(tmp, 'unreadable')
    const first = await startEarly(config(dataDir))
    await Promise.all(Object.values(first.anvils!))
    await first.release()
    const { writeFileSync } = await import('node:fs')
    writeFileSync(statePathOf(dataDir, 'local-base'), '{"block": ')
    await expect(startEarly(config(dataDir))).rejects.toMatchObject({ code: 'CHAIN_STATE_UNREADABLE' })
    // Nothing holds the data dir: a start with the chain reset gets it.
    const reset = await startEarly(
      loadConfig({ env: {}, file: {}, flags: { port: 0, dataDir, logLevel: 'silent', resetChain: ['local-base'] } }),
    )
    await Promise.all(Object.values(reset.anvils!))
    await reset.release()
  })
})
