import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { tightenTree } from './owner-only.js'

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
