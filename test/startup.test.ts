import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { exitCodes } from '../src/errors/exit-codes.js'
import { alive, anvilPids, eventually, serveFails, serveReady } from './helpers/serve-process.js'

const root = mkdtempSync(join(tmpdir(), 'parx-startup-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const dir = () => join(root, `d${n++}`)

const listenOn = (server: Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  )
const close = (server: Server) => new Promise((resolve) => server.close(resolve))

/** A port P with P..P+4 free (the API and the chain ports beside it). */
async function freeRun(): Promise<number> {
  for (;;) {
    const s = createServer()
    const p = await listenOn(s)
    await close(s)
    if (p > 65000) continue
    const probes = await Promise.all(
      [1, 2, 3, 4].map(async (i) => {
        const t = createServer()
        try {
          await new Promise<void>((resolve, reject) => {
            t.once('error', reject)
            t.listen(p + i, '127.0.0.1', () => resolve())
          })
          await close(t)
          return true
        } catch {
          return false
        }
      }),
    )
    if (probes.every(Boolean)) return p
  }
}

/** One line, no stack trace, and it names what to look at. */
function expectOneLine(r: { stderr: string; stdout: string }, names: RegExp) {
  const text = r.stderr.trim()
  expect(text.split('\n'), text).toHaveLength(1)
  expect(text).not.toMatch(/\n\s+at |\.ts:\d+|INTERNAL/)
  expect(text).toMatch(names)
}

/** A data dir that parx made, with a key file and a store in it (a start that fails at a taken chain port). */
async function parxDir(): Promise<string> {
  const d = dir()
  const blocker = createServer()
  const port = await freeRun()
  await listenOn(blocker, port + 1)
  await serveFails(['--data-dir', d, '--port', String(port)])
  await close(blocker)
  expect(existsSync(join(d, 'keys.json'))).toBe(true)
  return d
}

describe('issue 14 item 4: start-up failures end with one line and the right exit code', () => {
  it('--port abc | 70000 | -1 is a usage error naming the flag', async () => {
    for (const port of ['abc', '70000', '-1']) {
      const r = await serveFails(['--data-dir', dir(), `--port=${port}`])
      expect(r.code, port).toBe(exitCodes.usage)
      expect(r.stderr, port).toMatch(/--port/)
      expect(r.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('an API port in use names the port and the flag', async () => {
    const blocker = createServer()
    const port = await listenOn(blocker)
    try {
      const d = dir()
      const r = await serveFails(['--data-dir', d, '--port', String(port)])
      expect(r.code).toBe(exitCodes.failure)
      expectOneLine(r, new RegExp(`${port}.*in use.*--port`))
      expect(existsSync(join(d, 'parx.lock'))).toBe(false)
    } finally {
      await close(blocker)
    }
  })

  it('a data dir path that is a file is a usage error naming it', async () => {
    const f = join(root, 'a-file')
    writeFileSync(f, 'x')
    const r = await serveFails(['--data-dir', f, '--port', '0'])
    expect(r.code).toBe(exitCodes.usage)
    expectOneLine(r, /a-file.*not a directory/)
  })

  it('an unwritable data dir names it', async () => {
    const d = dir()
    mkdirSync(d, { mode: 0o755 })
    // As root permissions do not bind, so the daemon runs as nobody there.
    const asRoot = process.getuid?.() === 0
    if (!asRoot) chmodSync(d, 0o500)
    chmodSync(root, 0o755)
    // Inside root, so afterAll removes it with the rest.
    const configDir = dir()
    mkdirSync(configDir)
    chmodSync(configDir, 0o777)
    const r = await serveFails(['--data-dir', d, '--port', '0'], {
      prefix: asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [],
      env: { HOME: d, PARX_CONFIG_DIR: configDir },
    })
    expect(r.code).toBe(exitCodes.failure)
    expectOneLine(r, new RegExp(`${d}.*not writable`))
  })

  it('a corrupt or truncated parx.db names the file and what to do', async () => {
    const d = await parxDir()
    const db = join(d, 'parx.db')
    rmSync(`${db}-wal`, { force: true })
    rmSync(`${db}-shm`, { force: true })
    writeFileSync(db, 'this is not a database'.repeat(100))
    const corrupt = await serveFails(['--data-dir', d, '--port', '0'])
    expect(corrupt.code).toBe(exitCodes.failure)
    expectOneLine(corrupt, /parx\.db.*(move|restore)/)

    const real = new Database(db.replace('parx.db', 'other.db'))
    real.exec('CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(100000))')
    real.close()
    writeFileSync(db, readFileSync(db.replace('parx.db', 'other.db')))
    truncateSync(db, 5000)
    const truncated = await serveFails(['--data-dir', d, '--port', '0'])
    expect(truncated.code).toBe(exitCodes.failure)
    expectOneLine(truncated, /parx\.db/)
  })

  it('an invalid keys.json, or one missing a key, names the file and the key', async () => {
    const d = await parxDir()
    const file = join(d, 'keys.json')
    const keys = JSON.parse(readFileSync(file, 'utf8'))
    writeFileSync(file, '{ not json')
    const broken = await serveFails(['--data-dir', d, '--port', '0'])
    expect(broken.code).toBe(exitCodes.failure)
    expectOneLine(broken, /keys\.json/)
    delete keys.solver
    writeFileSync(file, JSON.stringify(keys))
    const missing = await serveFails(['--data-dir', d, '--port', '0'])
    expect(missing.code).toBe(exitCodes.failure)
    expectOneLine(missing, /keys\.json.*solver/)
  })

  it('a chain port held by a listener that never answers, or by another HTTP service, fails fast and leaves nothing running', async () => {
    const silent = createServer(() => {})
    const http = createHttpServer((_req, res) => res.end('{}')) as unknown as Server
    try {
      for (const [name, server] of [
        ['silent', silent],
        ['http', http],
      ] as const) {
        const port = await freeRun()
        await listenOn(server, port + 1)
        const d = dir()
        const r = await serveFails(['--data-dir', d, '--port', String(port)])
        expect(r.code, name).toBe(exitCodes.failure)
        expectOneLine(r, new RegExp(`${port + 1}.*in use`))
        const chains = join(d, 'chains')
        const pids = existsSync(chains) ? readdirSync(chains).filter((f: string) => f.endsWith('.pid')) : []
        expect(pids, name).toEqual([])
        await close(server)
      }
    } finally {
      silent.close()
      http.close()
    }
  })

  it('--fresh refuses a directory parx did not make, and keeps its files', async () => {
    const d = dir()
    mkdirSync(d)
    writeFileSync(join(d, 'precious.txt'), 'x')
    const r = await serveFails(['--fresh', '--data-dir', d, '--port', '0'])
    expect(r.code).toBe(exitCodes.usage)
    expectOneLine(r, /not a parx data dir/)
    expect(readFileSync(join(d, 'precious.txt'), 'utf8')).toBe('x')
  })
})

describe('issue 14 items 4 and 5: one daemon per data dir, tied children, owner-only modes', () => {
  it('under umask 000 everything is owner-only; a second serve is refused naming the first; a SIGKILLed daemon takes its anvils along', async () => {
    const d = dir()
    mkdirSync(d, { mode: 0o755 })
    chmodSync(d, 0o755)
    const first = await serveReady(['--data-dir', d, '--port', '0'], { shell: 'umask 000' })
    try {
      const mode = (p: string) => statSync(p).mode & 0o777
      const chains = join(d, 'chains')
      expect(await eventually(() => existsSync(chains) && readdirSync(chains).some((f) => f.endsWith('.json')))).toBe(
        true,
      )
      expect(mode(d)).toBe(0o700)
      expect(mode(chains)).toBe(0o700)
      const files = [
        'keys.json',
        'parx.db',
        'parx.db-wal',
        'parx.db-shm',
        'parx.log',
        ...readdirSync(chains).map((f) => join('chains', f)),
      ]
      for (const f of files) if (existsSync(join(d, f))) expect(mode(join(d, f)), f).toBe(0o600)
      expect(existsSync(join(d, 'parx.db'))).toBe(true)

      const anvils = anvilPids(d)
      expect(anvils).toHaveLength(2)
      const second = await serveFails(['--data-dir', d, '--port', '0'])
      expect(second.code).toBe(exitCodes.failure)
      expectOneLine(second, new RegExp(`pid ${first.child.pid}.*${first.ready.urls.api.replace(/[.:/]/g, '\\$&')}`))
      for (const pid of anvils) expect(alive(pid), `anvil ${pid} of the first daemon`).toBe(true)
      expect((await fetch(`${first.ready.urls.api}/api/health`)).status).toBe(200)

      first.child.kill('SIGKILL')
      await first.exited
      expect(await eventually(() => anvils.every((pid) => !alive(pid)))).toBe(true)
    } finally {
      await first.stop()
    }
  })

  it('tightens an existing data dir and its files that parx owns', async () => {
    const d = await parxDir()
    chmodSync(d, 0o755)
    chmodSync(join(d, 'keys.json'), 0o644)
    const blocker = createServer()
    const port = await freeRun()
    await listenOn(blocker, port + 1)
    await serveFails(['--data-dir', d, '--port', String(port)])
    await close(blocker)
    expect(statSync(d).mode & 0o777).toBe(0o700)
    expect(statSync(join(d, 'keys.json')).mode & 0o777).toBe(0o600)
  })
})
