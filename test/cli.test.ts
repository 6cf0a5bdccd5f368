import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main } from '../src/cli/main.js'
import { exitCodes } from '../src/errors/exit-codes.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

/** Runs `parx ...` in-process against the test daemon. */
const parx = (args: string[], env: NodeJS.ProcessEnv = {}) => runParx(d.urls.api, args, env)

describe('parx keys', () => {
  it('creates, lists and deactivates a key with the token read from the data dir', async () => {
    const created = await parx(['--output', 'json', 'keys', 'create', '--name', 'backend', '--data-dir', d.dataDir])
    expect(created.code).toBe(0)
    const key = JSON.parse(created.out)
    expect(key.key).toMatch(/^parx-[0-9a-f]{32}$/)
    // An operator key made without --owner is bound to no wallet: null, not a placeholder address.
    expect(key).toMatchObject({ owner: null, ownerWallet: null })
    const text = await parx(['keys', 'create', '--name', 'text', '--data-dir', d.dataDir])
    expect(text.out).toMatch(/^owner\s+none$/m)
    const owned = JSON.parse(
      (
        await parx([
          '-o',
          'json',
          'keys',
          'create',
          '--name',
          'owned',
          '--owner',
          '0x00000000000000000000000000000000000000Cc',
          '--data-dir',
          d.dataDir,
        ])
      ).out,
    )
    expect(owned.owner).toBe('0x00000000000000000000000000000000000000cc')
    const listed = JSON.parse((await parx(['-o', 'json', 'keys', 'list', '--data-dir', d.dataDir])).out)
    expect(listed.keys.some((k: any) => k.id === key.id && k.state === 'active')).toBe(true)
    const off = await parx(['keys', 'deactivate', key.id, '--data-dir', d.dataDir])
    expect(off.code).toBe(0)
    expect(off.out).toMatch(/Deactivated/)
  })

  it('prints the operator token for scripts', async () => {
    const r = await parx(['-o', 'json', 'keys', 'operator-token', '--data-dir', d.dataDir])
    expect(JSON.parse(r.out)).toEqual({ operatorToken: d.services.keys.operatorToken })
  })

  it('exits with the auth code on a wrong token', async () => {
    const r = await parx(['-o', 'json', 'keys', 'list', '--operator-token', 'x'.repeat(30)])
    expect(r.code).toBe(exitCodes.auth)
    expect(JSON.parse(r.out).code).toBe('UNAUTHORIZED')
  })
})

describe('parx faucet and status', () => {
  it('mints and reports in json', async () => {
    const r = await parx([
      '-o',
      'json',
      'faucet',
      '--to',
      '0x00000000000000000000000000000000000000cc',
      '--token',
      'XUSD',
      '--amount',
      '3.5',
    ])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({
      network: 'local-base',
      token: 'XUSD',
      amount: '3.5',
      tx: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
  })

  it('a malformed --to is a usage error, found before anything is sent', async () => {
    const r = await parx(['faucet', '--to', 'nobody'])
    expect(r.code).toBe(exitCodes.usage)
    expect(r.err).toMatch(/not an EVM address/)
    const j = await parx(['-o', 'json', 'faucet', '--to', '0x12'])
    expect(j.code).toBe(exitCodes.usage)
    expect(JSON.parse(j.out)).toEqual({
      error: expect.stringMatching(/--to '0x12' is not an EVM address/),
      code: 'USAGE',
    })
    expect(j.err).toBe('')
  })

  it('rejected requests exit with the rejected code and the service message', async () => {
    const r = await parx([
      '-o',
      'json',
      'faucet',
      '--to',
      '0x00000000000000000000000000000000000000cc',
      '--token',
      'SOL',
    ])
    expect(r.code).toBe(exitCodes.rejected)
    expect(JSON.parse(r.out).code).toMatch(/^[A-Z_]+$/)
  })

  it('status shows readiness', async () => {
    const r = await parx(['-o', 'json', 'status'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.out).ready).toBe(true)
    // One process on its data dir: role all, and it leads the worker duties (issue 28).
    expect(JSON.parse(r.out)).toMatchObject({
      role: 'all',
      leader: true,
      leadership: expect.stringMatching(/the only process on this data dir/),
    })
    expect((await parx(['--no-color', 'status'])).out).toMatch(/^role\s+all\nleader\s+yes {2}leads the worker duties/m)
  })

  it("openapi prints the daemon's OpenAPI document (one line in JSON, indented in text)", async () => {
    const j = await parx(['-o', 'json', 'openapi'])
    expect(j.code).toBe(0)
    expect(JSON.parse(j.out)).toMatchObject({
      openapi: '3.1.0',
      paths: { '/api/readiness': { get: expect.any(Object) } },
    })
    const t = await parx(['openapi'])
    expect(t.out.split('\n').length).toBeGreaterThan(100)
    expect(JSON.parse(t.out)).toEqual(JSON.parse(j.out))
  })

  it('openapi piped into a reader that stops early (| head) ends quietly', async () => {
    const child = spawn(process.execPath, ['bin/parx.js', '--api-url', d.urls.api, 'openapi'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (b: Buffer) => (stderr += b))
    // Read one chunk, then close the pipe, as `head -3` does.
    child.stdout.once('data', () => child.stdout.destroy())
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
    expect(stderr).not.toMatch(/EPIPE|at /)
    expect(code).toBe(0)
  })

  it('an unreachable daemon exits 5 and says what to do', async () => {
    const out: string[] = []
    const code = await main(['node', 'parx', '--api-url', 'http://127.0.0.1:9', 'status'], {
      stdout: (s: string) => void out.push(s),
      stderr: (s: string) => void out.push(s),
      env: {},
    })
    expect(code).toBe(exitCodes.unreachable)
    expect(out.join('\n')).toMatch(/http:\/\/127.0.0.1:9.*\n.*parx serve/)
  })

  it('status shows every readiness check', async () => {
    const r = await parx(['-o', 'json', 'status'])
    const s = JSON.parse(r.out)
    expect(Object.keys(s.checks).sort()).toEqual(['local-base', 'local-radius', 'local-solana', 'store'])
    for (const c of Object.values(s.checks) as { ok: boolean; ms: number }[])
      expect(c).toMatchObject({ ok: true, ms: expect.any(Number) })
    const text = await parx(['status'])
    expect(text.out).toMatch(/local-solana\s+ok/)
    // A chain's number is named: an EVM block height, a Solana slot.
    expect(text.out).toMatch(/^local-base\s+ok \d+ ms  block \d+$/m)
    expect(text.out).toMatch(/^local-solana\s+ok \d+ ms  slot \d+$/m)
  })

  it('a URL that is not one is a usage error, not a stack', async () => {
    const out: string[] = []
    const code = await main(['node', 'parx', '-o', 'json', 'status', '--api-url', 'notaurl', '--no-color'], {
      stdout: (s) => void out.push(s),
      stderr: (s) => void out.push(s),
      env: {},
    })
    expect(code).toBe(exitCodes.usage)
    expect(JSON.parse(out.join(''))).toEqual({
      error: expect.stringMatching(/--api-url must be an http\(s\) URL/),
      code: 'USAGE',
    })
  })

  it('usage errors exit 2', async () => {
    const r = await parx(['faucet'])
    expect(r.code).toBe(exitCodes.usage)
  })

  it('a server that is not parx at the URL is named as such (exit 5), not a bare HTTP 404', async () => {
    const server = createServer((_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
    )
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const out: string[] = []
      const code = await main(['node', 'parx', '-o', 'json', '--api-url', url, 'status'], {
        stdout: (s) => void out.push(s),
        stderr: (s) => void out.push(s),
        env: {},
      })
      expect(code).toBe(exitCodes.unreachable)
      const e = JSON.parse(out.join(''))
      expect(e.code).toBe('NOT_PARX')
      expect(e.error).toContain(`the server at ${url} is not a parx daemon`)
    } finally {
      server.close()
    }
  })

  // Last: it freezes a chain of the shared daemon for a moment.
  it('status names the check that fails and why, and exits 1', async () => {
    const pid = Number(readFileSync(join(d.dataDir, 'chains', 'local-base.json.pid'), 'utf8'))
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('anvil')
    process.kill(pid, 'SIGSTOP')
    try {
      // Field 3 of /proc/<pid>/stat: T once the stop took hold.
      await vi.waitFor(() => expect(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0]).toBe('T'))
      const r = await parx(['-o', 'json', 'status'])
      expect(r.code, r.out).toBe(1)
      const s = JSON.parse(r.out)
      expect(s.ready).toBe(false)
      const down = Object.entries(s.checks).filter(([, c]) => !(c as { ok: boolean }).ok)
      expect(down).toHaveLength(1)
      expect((down[0]![1] as { detail: string }).detail).toMatch(/no answer/)
    } finally {
      process.kill(pid, 'SIGCONT')
    }
  })
})
