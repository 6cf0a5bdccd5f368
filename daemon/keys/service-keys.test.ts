import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { keyFilePath } from '../../src/config/paths.js'
import { loadOrCreateKeyFile } from './service-keys.js'

const dirs: string[] = []
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'parx-keys-'))
  dirs.push(d)
  return d
}
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

describe('the local keys file', () => {
  it('is created with a receipt key, kept across starts', () => {
    const d = dir()
    const first = loadOrCreateKeyFile(d)
    expect(first.receipt).toMatch(/^0x[0-9a-f]{64}$/)
    expect(loadOrCreateKeyFile(d).receipt).toBe(first.receipt)
  })

  it('a file from before receipts gets one added, every other key as it was', () => {
    const d = dir()
    const { receipt: _, ...old } = loadOrCreateKeyFile(d)
    writeFileSync(keyFilePath(d), JSON.stringify(old))
    const upgraded = loadOrCreateKeyFile(d)
    expect(upgraded.receipt).toMatch(/^0x[0-9a-f]{64}$/)
    expect(upgraded).toEqual({ ...old, receipt: upgraded.receipt })
    expect(JSON.parse(readFileSync(keyFilePath(d), 'utf8'))).toEqual(upgraded)
  })
})
