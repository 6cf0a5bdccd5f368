import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BaseError } from '../../../src/errors/index.js'
import { adoptExitDump, exitDumpOf, prepareStateFile, unreadableReason } from './state-file.js'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const state = () => {
  const d = mkdtempSync(join(tmpdir(), 'parx-state-'))
  dirs.push(d)
  return join(d, 'local-base.json')
}
const ago = (path: string, s: number) =>
  utimesSync(path, new Date(Date.now() - s * 1000), new Date(Date.now() - s * 1000))
const never = () => {
  throw new Error('must not warn')
}

describe('the embedded chain state file', () => {
  it('tells a file too big to parse by its ends, with the same answers as when read whole', () => {
    const path = state()
    const filler = `"accounts": {${'"0x00": 1, '.repeat(100_000)}"0x01": 1}`
    writeFileSync(path, `\n{"block": {}, ${filler}}\n`)
    expect(unreadableReason(path)).toBeUndefined()
    writeFileSync(path, `{"block": {}, ${filler.slice(0, -4)}`)
    expect(unreadableReason(path)).toMatch(/^truncated JSON at byte \d+$/)
    writeFileSync(path, `\u0000{"block": {}, ${filler}}`)
    expect(unreadableReason(path)).toMatch(/^not JSON: starts with/)
  })

  it("takes anvil's exit dump when it is whole and newer than what parx last wrote", () => {
    const path = state()
    writeFileSync(path, '{"block": 1}')
    ago(path, 10)
    writeFileSync(exitDumpOf(path), '{"block": 2}')
    adoptExitDump(path, never)
    expect(readFileSync(path, 'utf8')).toBe('{"block": 2}')
    expect(existsSync(exitDumpOf(path))).toBe(false)
  })

  it("drops an exit dump cut short, or one older than parx's last write, and keeps the state file", () => {
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

  it('says what an unreadable state file holds', () => {
    const path = state()
    const reason = (text: string) => (writeFileSync(path, text), unreadableReason(path))
    expect(reason('')).toBe('empty file')
    expect(reason('garbage, not a chain at all')).toBe("not JSON: starts with 'garbage, not a c…'")
    expect(reason('{"block": {"number": "0x5"}, "accounts": {"0xab": {"nonce"')).toBe('truncated JSON at byte 58')
    expect(reason('{"block": {}, "accounts": {x}}')).toBe('invalid JSON at byte 27')
    expect(reason('{"foo": 1}')).toBe('JSON, but not an anvil state (no "block" and "accounts")')
    expect(reason('{"block": {}, "accounts": {}}\n')).toBeUndefined()
  })

  it('refuses to start a chain from a state file it cannot read, and changes nothing', () => {
    const path = state()
    const files = {
      [path]: 'garbage',
      [`${path}.good`]: '{"block": {}, "accounts": {"old": 1}}',
      [exitDumpOf(path)]: '{"block": {}, "accou',
      [`${path}.tmp`]: '{"block": {}, "accounts": {"tmp": 1}}',
    }
    for (const [f, text] of Object.entries(files)) writeFileSync(f, text)
    ago(`${path}.good`, 3600)
    let error: unknown
    try {
      prepareStateFile(path, { name: 'local-base', warn: never })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(BaseError)
    expect((error as BaseError).code).toBe('CHAIN_STATE_UNREADABLE')
    const message = (error as BaseError).message
    expect(message.split('\n')).toHaveLength(1)
    expect(message).toMatch(
      new RegExp(`^${path} cannot be read: not JSON: starts with 'garbage' \\(7 bytes, written .*Z\\)`),
    )
    expect(message).toMatch(
      /restore the file from a backup; a complete earlier copy is .*\.tmp .*; a complete earlier copy is .*\.good .*--fresh.*--reset-chain local-base/,
    )
    expect(message).not.toMatch(/\.exit/)
    for (const [f, text] of Object.entries(files)) expect(readFileSync(f, 'utf8')).toBe(text)
    expect(readdirSync(join(path, '..'))).toHaveLength(4)
  })

  it('--reset-chain moves the state file aside and the chain starts over', () => {
    const path = state()
    writeFileSync(path, 'garbage')
    const warnings: string[] = []
    prepareStateFile(path, { name: 'local-base', reset: true, warn: (m) => warnings.push(m), now: () => 42 })
    expect(existsSync(path)).toBe(false)
    expect(readFileSync(`${path}.reset-42`, 'utf8')).toBe('garbage')
    expect(warnings[0]).toMatch(/local-base starts over from an empty chain .*kept at .*\.reset-42.*disagree/)
    prepareStateFile(path, { name: 'local-base', warn: never })
  })

  it('a whole state file: leftovers of an unfinished write and the copy an earlier release kept are removed', () => {
    const path = state()
    writeFileSync(path, '{"block": {}, "accounts": {}}')
    writeFileSync(`${path}.good`, '{"block": {}, "accounts": {}}')
    writeFileSync(`${path}.tmp`, '{"block": {}, "acc')
    prepareStateFile(path, { name: 'local-base', warn: never })
    expect(readdirSync(join(path, '..'))).toEqual(['local-base.json'])
  })
})
