import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { lockPath } from '../../src/config/paths.js'
import { lockDataDir, lockHolder } from './lock.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'parx-lock-'))
  dirs.push(d)
  return d
}

// The one reading of the lock, for `parx serve` and `parx backup` alike.
describe('lockHolder', () => {
  it('names the live holder and the URL it recorded', () => {
    const d = dataDir()
    const lock = lockDataDir(d)
    expect(lockHolder(d)).toEqual({ pid: process.pid, url: undefined })
    lock.setUrl('http://127.0.0.1:1234')
    expect(lockHolder(d)).toEqual({ pid: process.pid, url: 'http://127.0.0.1:1234' })
    lock.release()
    expect(lockHolder(d)).toBeUndefined()
  })

  it('finds none in a missing or unreadable lock', () => {
    const d = dataDir()
    expect(lockHolder(d)).toBeUndefined()
    writeFileSync(lockPath(d), '{"pid": ')
    expect(lockHolder(d)).toBeUndefined()
    writeFileSync(lockPath(d), JSON.stringify({ pid: 'me', url: 'http://127.0.0.1:1' }))
    expect(lockHolder(d)).toBeUndefined()
  })

  it('takes a lock whose pid now belongs to another program for stale', async () => {
    // A reused pid: alive, but not a node or parx process (the /proc cmdline check).
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      await new Promise((resolve) => other.once('spawn', resolve))
      const d = dataDir()
      writeFileSync(lockPath(d), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:9' }))
      expect(lockHolder(d)).toBeUndefined()
      // And the start takes it over.
      const lock = lockDataDir(d)
      expect(lockHolder(d)?.pid).toBe(process.pid)
      lock.release()
      expect(existsSync(lockPath(d))).toBe(false)
    } finally {
      other.kill()
    }
  })
})
