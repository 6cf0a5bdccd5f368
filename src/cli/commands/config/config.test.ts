import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/load.js'
import { UsageError } from '../../../errors/usage.js'
import { createContext } from '../../context.js'
import type { CliError } from '../../errors.js'
import * as get from './get.js'
import * as path from './path.js'
import * as set from './set.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-conf-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const out: string[] = []
const err: string[] = []
const ctx = createContext(
  { env: { PARX_CONFIG_DIR: dir }, stdout: (s) => void out.push(s), stderr: (s) => void err.push(s) },
  { output: 'json' },
)

describe('parx config', () => {
  it('sets values the daemon then reads, in a 0600 file', async () => {
    await set.run('port', '9100', ctx)
    await set.run('rpc.base-sepolia', 'https://rpc.example/base', ctx)
    await set.run('auth.enforce', 'false', ctx)
    const file = (await path.run({}, ctx)).path
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect((await get.run('port', ctx)).value).toBe(9100)
    const c = loadConfig({ env: { PARX_CONFIG_DIR: dir } })
    expect(c.port).toBe(9100)
    expect(c.rpc['base-sepolia']).toBe('https://rpc.example/base')
    expect(c.auth.enforce).toBe(false)
  })

  it('refuses a value the daemon would reject and leaves the file as it was', async () => {
    await expect(set.run('port', '"not-a-port"', ctx)).rejects.toThrow(/port/)
    expect((await get.run('port', ctx)).value).toBe(9100)
  })

  it('refuses a key the daemon does not know, with the usage code', async () => {
    const e = await set.run('foo.bar', '1', ctx).catch((e: unknown) => e)
    expect(e).toBeInstanceOf(UsageError)
    expect((e as UsageError).code).toBe('USAGE')
    expect((e as UsageError).message).toMatch(/unknown setting 'foo.bar'/)
    expect((await get.run(undefined, ctx)).value).not.toHaveProperty('foo')
  })

  it('narrows a file other users could read, and says so on stderr', async () => {
    const file = (await path.run({}, ctx)).path
    chmodSync(file, 0o644)
    err.length = 0
    expect((await get.run('port', ctx)).value).toBe(9100)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(err.join('\n')).toMatch(/had mode 0644; set it to 0600/)
  })

  it('refuses a corrupt file, naming it, and leaves it alone', async () => {
    const other = mkdtempSync(join(tmpdir(), 'parx-conf-bad-'))
    try {
      writeFileSync(join(other, 'config.json'), '{"serve": {', { mode: 0o600 })
      const bad = createContext(
        { env: { PARX_CONFIG_DIR: other }, stdout: () => {}, stderr: () => {} },
        { output: 'json' },
      )
      const e = await get.run('port', bad).catch((e: unknown) => e)
      expect((e as CliError).code).toBe('CONFIG_CORRUPT')
      expect((e as CliError).message).toContain(join(other, 'config.json'))
    } finally {
      rmSync(other, { recursive: true, force: true })
    }
  })
})
