import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// A person at a terminal, through a real pseudo-terminal: util-linux `script` runs parx on a pty
// and relays what we write to it as keystrokes.
const tmp = mkdtempSync(join(tmpdir(), 'parx-pty-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const baseEnv = (name: string) => ({ ...process.env, PARX_CONFIG_DIR: join(tmp, name), PARX_RUNTIME_DIR: join(tmp, `${name}-run`), TERM: 'xterm', PARX_API_URL: '' })

/** Runs `parx <args>` on a pty; `answer` is typed once `waitFor` appears. Resolves with the exit code and everything the pty showed. */
function onPty(args: string, env: NodeJS.ProcessEnv, steps: { waitFor: string; type: string }[], stty = '') {
  const child = spawn('script', ['-qfec', `${stty}${process.execPath} bin/parx.js ${args}`, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] })
  let screen = ''
  let step = 0
  child.stdout!.on('data', (d: Buffer) => {
    screen += d.toString()
    while (step < steps.length && screen.includes(steps[step]!.waitFor)) child.stdin!.write(steps[step++]!.type)
  })
  // A safety net, not a time assertion: a hung run ends with what the screen showed, for the failure message.
  const stuck = setTimeout(() => child.kill('SIGKILL'), 100_000)
  return new Promise<{ code: number | null; screen: string }>((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(stuck)
      resolve({ code, screen })
    }),
  )
}

const key = 'parxu-0123456789abcdef-secret-7777'

describe('prompts on a terminal', () => {
  it('asks for a missing key with hidden input and stores it', async () => {
    const env = baseEnv('a')
    const r = await onPty('auth user login', env, [{ waitFor: 'User API key', type: `${key}\r` }])
    expect(r.code).toBe(0)
    expect(r.screen).not.toContain('0123456789abcdef') // not echoed, not printed
    expect(r.screen).toContain('Stored the user key parxu-…7777')
    expect(JSON.parse(readFileSync(join(tmp, 'a', 'config.json'), 'utf8'))).toEqual({ platform: { userKey: key } })
  })

  it('Ctrl-C at the prompt exits 130 and stores nothing', async () => {
    const env = baseEnv('b')
    const r = await onPty('--no-color agent login', env, [{ waitFor: 'Agent API key', type: '\x03' }])
    expect(r.code).toBe(130)
    expect(r.screen).not.toMatch(/\x1b\[[0-9;]*m/) // --no-color reaches the prompt too
    expect(existsSync(join(tmp, 'b', 'config.json')) ? JSON.parse(readFileSync(join(tmp, 'b', 'config.json'), 'utf8')) : {}).toEqual({})
  })

  it('without a terminal nothing prompts: a usage error names the flag', () => {
    const r = spawnSync(process.execPath, ['bin/parx.js', 'auth', 'user', 'login'], { env: baseEnv('c'), encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/missing --user-key: pass --user-key <value>/)
    const j = spawnSync(process.execPath, ['bin/parx.js', '-o', 'json', 'agent', 'login'], { env: baseEnv('c'), encoding: 'utf8' })
    expect(j.status).toBe(2)
    expect(JSON.parse(j.stdout)).toEqual({ error: expect.stringMatching(/--agent-key/), code: 'USAGE' })
  })

  it('on a zero-width terminal the spinner draws nothing; NO_COLOR leaves no colour; Ctrl-C on serve exits 130', async () => {
    const env = { ...baseEnv('d'), NO_COLOR: '1' }
    const r = await onPty(`serve --port 0 --data-dir ${join(tmp, 'd-data')} --log-level warn`, env, [{ waitFor: 'Press Ctrl-C', type: '\x03' }], 'stty cols 0 rows 0; ')
    expect(r.code, r.screen).toBe(130)
    expect(r.screen).toMatch(/parx is ready/)
    expect(r.screen).not.toMatch(/\x1b\[/) // no cursor codes, no colour
    expect(r.screen.length).toBeLessThan(4000)
  }, 120_000)
})
