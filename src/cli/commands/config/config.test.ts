import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../../config/load.js'
import type { CliContext } from '../../context.js'
import * as get from './get.js'
import * as path from './path.js'
import * as set from './set.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-conf-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const out: string[] = []
const ctx: CliContext = { apiUrl: '', output: 'json', env: { PARX_CONFIG_DIR: dir }, stdout: (s) => out.push(s), stderr: () => {} }

describe('parx config', () => {
  it('sets values the daemon then reads, in a 0600 file', () => {
    set.run('port', '9100', ctx)
    set.run('rpc.base-sepolia', 'https://rpc.example/base', ctx)
    set.run('auth.enforce', 'false', ctx)
    const file = path.run({}, ctx).path
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(get.run('port', ctx).value).toBe(9100)
    const c = loadConfig({ env: { PARX_CONFIG_DIR: dir } })
    expect(c.port).toBe(9100)
    expect(c.rpc['base-sepolia']).toBe('https://rpc.example/base')
    expect(c.auth.enforce).toBe(false)
  })

  it('refuses a value the daemon would reject and leaves the file as it was', () => {
    expect(() => set.run('port', '"not-a-port"', ctx)).toThrow(/port/)
    expect(get.run('port', ctx).value).toBe(9100)
  })
})
