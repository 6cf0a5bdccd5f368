import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keepStateSnapshots, restoreBrokenState } from './state-snapshot.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const state = () => {
  const d = mkdtempSync(join(tmpdir(), 'parx-state-'))
  dirs.push(d)
  return join(d, 'local-base.json')
}

describe('anvil state snapshots', () => {
  it('keeps the last complete state and restores it over a file a crash cut short', () => {
    const path = state()
    writeFileSync(path, JSON.stringify({ block: 7, accounts: { a: 1 } }))
    keepStateSnapshots(path).stop()
    expect(JSON.parse(readFileSync(`${path}.good`, 'utf8'))).toEqual({ block: 7, accounts: { a: 1 } })

    writeFileSync(path, '{"block": 8, "accou')
    const warnings: string[] = []
    restoreBrokenState(path, (m) => warnings.push(m))
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ block: 7, accounts: { a: 1 } })
    expect(warnings[0]).toMatch(/cut short.*last complete copy/)
  })

  it('never copies a broken file over the good copy, and leaves a whole file alone', () => {
    const path = state()
    writeFileSync(path, '{"block": 1}')
    keepStateSnapshots(path).stop()
    writeFileSync(path, '')
    keepStateSnapshots(path).stop()
    expect(readFileSync(`${path}.good`, 'utf8')).toBe('{"block": 1}')
    writeFileSync(path, '{"block": 2}')
    restoreBrokenState(path, () => { throw new Error('must not warn') })
    expect(readFileSync(path, 'utf8')).toBe('{"block": 2}')
  })

  it('keeps copying while the chain runs (in its worker thread): a newer whole state, never a broken one', async () => {
    const path = state()
    writeFileSync(path, '{"block": 1}')
    const snapshots = keepStateSnapshots(path, 20)
    try {
      // Let the worker start, then keep this thread busy: the copy must still happen meanwhile.
      await new Promise((r) => setTimeout(r, 200))
      writeFileSync(path, '{"block": 2, "accounts": {}}')
      let copiedWhileBusy = false
      for (const end = Date.now() + 3_000; Date.now() < end && !copiedWhileBusy;) {
        copiedWhileBusy = readFileSync(`${path}.good`, 'utf8') === '{"block": 2, "accounts": {}}'
      }
      expect(copiedWhileBusy).toBe(true)
      writeFileSync(path, '{"block": 3, "acc')
      await new Promise((r) => setTimeout(r, 200))
      expect(readFileSync(`${path}.good`, 'utf8')).toBe('{"block": 2, "accounts": {}}')
    } finally {
      snapshots.stop()
    }
  })

  it('moves aside a broken first write (no complete copy yet), so the chain starts empty', () => {
    const path = state()
    writeFileSync(path, '')
    const warnings: string[] = []
    restoreBrokenState(path, (m) => warnings.push(m))
    expect(existsSync(path)).toBe(false)
    expect(warnings[0]).toMatch(/first write; moved to .*\.broken-\d+, the chain starts empty/)
  })
})
