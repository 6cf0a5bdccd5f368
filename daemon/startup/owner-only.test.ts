import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { OWNER_ONLY_UMASK, ownerOnlyUmask, tightenTree } from './owner-only.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-owner-only-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('tightens what is there and passes over an entry gone since the directory was listed (a stopping daemon removes parx.db-wal)', () => {
  const file = join(dir, 'parx.db')
  writeFileSync(file, 'x')
  chmodSync(file, 0o644)
  chmodSync(dir, 0o755)
  tightenTree(dir, (d) => [...readdirSync(d), 'parx.db-wal'])
  expect(statSync(file).mode & 0o777).toBe(0o600)
  expect(statSync(dir).mode & 0o777).toBe(0o700)
})

it('holds the owner-only umask until the last holder gives it back, then restores the one found; a second release is a no-op', () => {
  const found = process.umask(0o022)
  try {
    const first = ownerOnlyUmask()
    const second = ownerOnlyUmask()
    expect(process.umask()).toBe(OWNER_ONLY_UMASK)
    first()
    first()
    expect(process.umask()).toBe(OWNER_ONLY_UMASK)
    second()
    expect(process.umask()).toBe(0o022)
  } finally {
    process.umask(found)
  }
})
