import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * Issue 42 item 7: a daemon started in-process (a test, a benchmark, someone's own server) must
 * hand its process back as it found it once stopped. It used to leave the owner-only umask behind,
 * so `npm run bench` with no names failed when a later benchmark's embedded PostgreSQL (initdb runs
 * as the postgres user when we are root) could not read the password file the bench process wrote;
 * and it left parx.log open with pino's flush-at-exit hook on `process`, one of each per start.
 */
const EMBEDDER_UMASK = 0o022
let found: number
beforeAll(() => {
  found = process.umask(EMBEDDER_UMASK)
})
afterAll(() => {
  process.umask(found)
})

/** What of the process a daemon could change and must give back. */
function processState() {
  return {
    umask: process.umask(),
    env: { ...process.env },
    listeners: Object.fromEntries(process.eventNames().map((e) => [String(e), process.listeners(e as 'exit')])),
    globalDispatcher: (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')],
  }
}

/** Files of `dir` this process holds open. */
function openFilesUnder(dir: string): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`)
      return target.startsWith(`${dir}/`) ? [target] : []
    } catch {
      return [] // the fd readdir itself used, closed since
    }
  })
}

describe('a daemon started in-process', () => {
  it('runs owner-only and, once stopped, leaves its embedder umask, env, process listeners, global dispatcher and open files as it found them', async () => {
    const before = processState()
    const d = await startTestDaemon({ flags: { logLevel: 'info' } })
    try {
      // While it runs, what it creates is owner-only, as under `parx serve`.
      expect(process.umask()).toBe(0o077)
      expect(openFilesUnder(d.dataDir)).toContain(join(d.dataDir, 'parx.log'))
    } finally {
      await d.close({ keepData: true })
    }
    expect(processState()).toEqual(before)
    expect(openFilesUnder(d.dataDir)).toEqual([])
    // Closed, not dropped: the lines logged before the stop are in the file.
    expect(readFileSync(join(d.dataDir, 'parx.log'), 'utf8')).toContain('"parx daemon ready"')
    rmSync(d.dataDir, { recursive: true, force: true })
  })

  it('beside another: the umask stays owner-only until the last of the two stops', async () => {
    const daemons: TestDaemon[] = []
    try {
      daemons.push(await startTestDaemon(), await startTestDaemon())
      await daemons.shift()!.close()
      expect(process.umask()).toBe(0o077)
      await daemons.shift()!.close()
      expect(process.umask()).toBe(EMBEDDER_UMASK)
    } finally {
      for (const d of daemons) await d.close()
    }
  })

  it('refused at start (its port taken) gives the umask back', async () => {
    const taken: Server = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as { port: number }).port
    const dataDir = mkdtempSync(join(tmpdir(), 'parx-test-'))
    try {
      await expect(startTestDaemon({ dataDir, flags: { port } })).rejects.toThrow(/--port/)
      expect(process.umask()).toBe(EMBEDDER_UMASK)
    } finally {
      await new Promise((r) => taken.close(r))
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
