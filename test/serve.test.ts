import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { alive, eventually } from './helpers/serve-process.js'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-serve-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

/** `parx --output json serve` as a user runs it: a child process, its ready line on stdout. */
async function serve() {
  const child = spawn(
    process.execPath,
    ['bin/parx.js', '--output', 'json', 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, ready: JSON.parse(line), exited }
}

const anvilPids = () =>
  readdirSync(join(dataDir, 'chains'))
    .filter((f) => f.endsWith('.pid'))
    .map((f) => Number(readFileSync(join(dataDir, 'chains', f), 'utf8')))

describe('parx serve', () => {
  it('prints one JSON ready line with every URL, serves them, and stops everything on SIGTERM', async () => {
    const { child, ready, exited } = await serve()
    expect(ready).toMatchObject({ ready: true, profile: 'local', dataDir })
    expect(Object.keys(ready.urls).sort()).toEqual(['api', 'dashboard', 'facilitator', 'platform', 'rpc'])
    expect(Object.keys(ready.urls.rpc).sort()).toEqual(['local-base', 'local-radius', 'local-solana'])
    expect(await (await fetch(`${ready.urls.api}/api/health`)).json()).toMatchObject({ ok: true })
    const chainId = await fetch(ready.urls.rpc['local-base'], {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then((r) => r.json())
    expect(chainId.result).toMatch(/^0x/)
    const solana = await fetch(ready.urls.rpc['local-solana'], {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
    }).then((r) => r.json())
    expect(solana.result).toBe('ok')
    const pids = anvilPids()
    expect(pids).toHaveLength(2)
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    for (const pid of pids) expect(existsSync(`/proc/${pid}`), `anvil ${pid} still running`).toBe(false)
    expect(anvilPids()).toEqual([])
  })

  it('after a SIGKILL of the node process alone, its anvils stop too, and the next start reaches ready on the same state', async () => {
    const first = await serve()
    const api = first.ready.urls.api
    const router = (await (await fetch(`${api}/api/base/info`)).json()).router
    const orphans = anvilPids()
    first.child.kill('SIGKILL')
    await first.exited
    // Tied to the daemon's life (parent-death signal), they do not wait for the next start.
    expect(await eventually(() => orphans.every((pid) => !alive(pid)))).toBe(true)
    const second = await serve()
    try {
      expect((await (await fetch(`${second.ready.urls.api}/api/base/info`)).json()).router).toBe(router)
    } finally {
      second.child.kill('SIGTERM')
      await second.exited
    }
  })
})
