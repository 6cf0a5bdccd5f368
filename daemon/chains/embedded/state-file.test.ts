import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { adoptExitDump, exitDumpOf, restoreBrokenState } from './state-file.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const state = () => {
  const d = mkdtempSync(join(tmpdir(), 'parx-state-'))
  dirs.push(d)
  return join(d, 'local-base.json')
}
const ago = (path: string, s: number) => utimesSync(path, new Date(Date.now() - s * 1000), new Date(Date.now() - s * 1000))
const never = () => {
  throw new Error('must not warn')
}

describe('the embedded chain state file', () => {
  it('takes anvil\'s exit dump when it is whole and newer than what parx last wrote', () => {
    const path = state()
    writeFileSync(path, '{"block": 1}')
    ago(path, 10)
    writeFileSync(exitDumpOf(path), '{"block": 2}')
    adoptExitDump(path, never)
    expect(readFileSync(path, 'utf8')).toBe('{"block": 2}')
    expect(existsSync(exitDumpOf(path))).toBe(false)
  })

  it('drops an exit dump cut short, or one older than parx\'s last write, and keeps the state file', () => {
    const path = state()
    writeFileSync(path, '{"block": 5}')
    ago(path, 10)
    writeFileSync(exitDumpOf(path), '{"block": 6, "acc')
    const warnings: string[] = []
    adoptExitDump(path, (m) => warnings.push(m))
    expect(readFileSync(path, 'utf8')).toBe('{"block": 5}')
    expect(existsSync(exitDumpOf(path))).toBe(false)
    expect(warnings[0]).toMatch(/\.exit was cut short .* starts from .*local-base\.json/)

    writeFileSync(exitDumpOf(path), '{"block": 4}')
    ago(exitDumpOf(path), 20)
    adoptExitDump(path, never)
    expect(readFileSync(path, 'utf8')).toBe('{"block": 5}')
    expect(existsSync(exitDumpOf(path))).toBe(false)
  })

  it('a state file an earlier release left cut short: its last complete copy, or aside so the chain starts empty', () => {
    const path = state()
    writeFileSync(`${path}.good`, '{"block": 7}')
    writeFileSync(path, '{"block": 8, "accou')
    const warnings: string[] = []
    restoreBrokenState(path, (m) => warnings.push(m))
    expect(readFileSync(path, 'utf8')).toBe('{"block": 7}')
    expect(warnings[0]).toMatch(/cut short.*last complete copy/)
    restoreBrokenState(path, never)

    const first = state()
    writeFileSync(first, '')
    restoreBrokenState(first, (m) => warnings.push(m))
    expect(existsSync(first)).toBe(false)
    expect(warnings[1]).toMatch(/first write; moved to .*\.broken-\d+, the chain starts empty/)
  })
})
