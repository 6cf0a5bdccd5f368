import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'

const tmp = mkdtempSync(join(tmpdir(), 'parx-cli-serve-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const env = {
  ...process.env,
  PARX_RUNTIME_DIR: join(tmp, 'run'),
  PARX_CONFIG_DIR: join(tmp, 'config'),
  NO_COLOR: '1',
  PARX_API_URL: '',
}
const parx = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, ['bin/parx.js', ...args], { env: { ...env, ...extra }, encoding: 'utf8' })

describe('parx serve as a user runs it (text mode)', () => {
  it('records where it runs; other commands find it without flags; Ctrl-C exits 130 and removes the record', async () => {
    const dataDir = join(tmp, 'data')
    const child = spawn(
      process.execPath,
      ['bin/parx.js', 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const lines: string[] = []
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (l) => {
        lines.push(l)
        if (l.startsWith('data')) resolve()
      })
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
    })
    try {
      expect(lines[0]).toMatch(/^✔ parx is ready \(local profile, \d+ ms\)$/)
      expect(lines.join('\n')).not.toMatch(/\x1b\[/) // NO_COLOR
      const api = /^API\s+(\S+)$/m.exec(lines.join('\n'))![1]!

      const file = join(tmp, 'run', 'daemon.json')
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(join(tmp, 'run')).mode & 0o777).toBe(0o700)
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ apiUrl: api, dataDir, pid: child.pid })

      const status = parx(['-o', 'json', 'status'])
      expect(status.status, status.stderr).toBe(0)
      expect(JSON.parse(status.stdout)).toMatchObject({ apiUrl: api, ready: true })
      const token = parx(['-o', 'json', 'keys', 'operator-token'])
      expect(JSON.parse(token.stdout).operatorToken).toBe(
        JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')).operatorToken,
      )
    } finally {
      child.kill('SIGINT')
    }
    expect(await exited).toBe(130)
    expect(existsSync(join(tmp, 'run', 'daemon.json'))).toBe(false)
    // Without the record, the default URL is used (here on a port nobody serves): exit 5, naming it.
    const gone = parx(['status'], { PARX_PORT: '9' })
    expect(gone.status).toBe(5)
    expect(gone.stderr).toMatch(/cannot reach http:\/\/127.0.0.1:9.*\n.*parx serve/)
  })

  it('refuses a corrupt config file, naming it, before starting anything', () => {
    const dir = join(tmp, 'bad-config')
    mkdirSync(dir, { mode: 0o700 })
    writeFileSync(join(dir, 'config.json'), '{"serve": {', { mode: 0o600 })
    const r = parx(['-o', 'json', 'serve', '--port', '0', '--data-dir', join(tmp, 'never')], { PARX_CONFIG_DIR: dir })
    expect(r.status).toBe(1)
    expect(JSON.parse(r.stdout)).toEqual({
      error: expect.stringContaining(join(dir, 'config.json')),
      code: 'CONFIG_CORRUPT',
    })
    expect(existsSync(join(tmp, 'never'))).toBe(false)
  })
})
