import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

// A person at a terminal, through a real pseudo-terminal: util-linux `script` runs parx on a pty
// and relays what we write to it as keystrokes.
const tmp = mkdtempSync(join(tmpdir(), 'parx-pty-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const baseEnv = (name: string) => ({
  ...process.env,
  PARX_CONFIG_DIR: join(tmp, name),
  PARX_RUNTIME_DIR: join(tmp, `${name}-run`),
  TERM: 'xterm',
  PARX_API_URL: '',
})

/** Runs `parx <args>` on a pty; `answer` is typed once `waitFor` appears. Resolves with the exit code and everything the pty showed. */
function onPty(args: string, env: NodeJS.ProcessEnv, steps: { waitFor: string; type: string }[], stty = '') {
  const child = spawn('script', ['-qfec', `${stty}${process.execPath} bin/parx.js ${args}`, '/dev/null'], {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
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
const agentKey = `parx-a-${'2'.repeat(64)}`
const AGENT_ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'
const NOW = '2026-11-23T20:00:00.000Z'
const price = {
  protocol: 'x402-v2',
  amount: '0.25',
  token: 'PUSD',
  network: 'local-base',
  payTo: '0x3333333333333333333333333333333333333333',
}

/**
 * The platform's answers for the routes these prompts lead to (docs/platform-api.md shapes), on
 * 127.0.0.1: the daemon's platform routes are built on another branch. `pays` counts real payments.
 */
let platform: Server
let platformUrl = ''
const payBodies: { dryRun?: boolean; maxAmount?: string }[] = []
beforeAll(async () => {
  platform = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => (raw += c))
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
      if (req.url === '/api/users/me' && req.headers['x-user-key'] === key)
        return send(200, {
          id: '6f1c3f5e-8d2b-4c1a-9e7f-2a3b4c5d6e7f',
          wallet: null,
          name: 'dev',
          createdAt: NOW,
          agents: 0,
          endpoints: 0,
        })
      if (req.headers['x-agent-key'] !== agentKey)
        return send(401, { error: 'unknown or revoked key', code: 'UNAUTHORIZED' })
      if (req.url === '/api/agents/me') {
        return send(200, {
          id: AGENT_ID,
          name: 'buyer',
          network: 'local-base',
          chainId: 31337,
          wallet: '0x1111111111111111111111111111111111111111',
          sendMethod: 'userOperation',
          tokens: [],
          createdAt: NOW,
          limits: {
            perPaymentUsd: null,
            dailyUsd: null,
            allowedHosts: null,
            spentTodayUsd: '0',
            remainingTodayUsd: null,
          },
        })
      }
      if (req.url === `/api/agents/${AGENT_ID}/pay`) {
        const body = JSON.parse(raw) as { dryRun?: boolean; maxAmount?: string }
        payBodies.push(body)
        if (body.dryRun)
          return send(200, {
            dryRun: true,
            wouldPay: true,
            refusedBy: null,
            offer: { ...price, scheme: 'exact' },
            remaining: { perPayment: null, day: null },
            price,
            withinLimits: true,
            remainingTodayUsd: null,
          })
        return send(200, {
          dryRun: false,
          status: 200,
          headers: {},
          body: 'the forecast: sun',
          bodyEncoding: 'utf8',
          receipt: {
            ...price,
            transaction: `0x${'ab'.repeat(32)}`,
            payer: '0x1111111111111111111111111111111111111111',
          },
        })
      }
      send(404, { error: 'no route', code: 'NOT_FOUND' })
    })
  })
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r))
  platformUrl = `http://127.0.0.1:${(platform.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((r) => platform.close(() => r())))

describe('prompts on a terminal', () => {
  it('asks for a missing key with hidden input and stores it', async () => {
    const env = { ...baseEnv('a'), PARX_AGENTS_URL: platformUrl }
    const r = await onPty('auth user login', env, [{ waitFor: 'User API key', type: `${key}\r` }])
    expect(r.code, r.screen).toBe(0)
    expect(r.screen).not.toContain('0123456789abcdef') // not echoed, not printed
    expect(r.screen).toContain('Logged in as user dev; stored the user key parxu-…7777')
    expect(JSON.parse(readFileSync(join(tmp, 'a', 'config.json'), 'utf8'))).toEqual({ platform: { userKey: key } })
  })

  it('pay shows the price, network, token and payee and pays only when the person says yes', async () => {
    const env = { ...baseEnv('p'), NO_COLOR: '1', PARX_AGENTS_URL: platformUrl, PARX_AGENT_KEY: agentKey }
    payBodies.length = 0
    const no = await onPty('pay --url http://127.0.0.1:9/paid/weather', env, [
      { waitFor: 'Pay 0.25 PUSD', type: 'n\r' },
    ])
    expect(no.code, no.screen).toBe(130)
    expect(no.screen).toMatch(/price\s+0\.25 PUSD[\s\S]*network\s+local-base[\s\S]*payee\s+0x3333/)
    expect(payBodies.map((b) => b.dryRun)).toEqual([true]) // asked the price, paid nothing
    const yes = await onPty('pay --url http://127.0.0.1:9/paid/weather', env, [
      { waitFor: 'Pay 0.25 PUSD', type: 'y\r' },
    ])
    expect(yes.code, yes.screen).toBe(0)
    expect(yes.screen).toContain('the forecast: sun')
    expect(yes.screen).toMatch(/Paid 0\.25 PUSD on local-base/)
    expect(payBodies.at(-1)).toMatchObject({ dryRun: false, maxAmount: '0.25' }) // capped at the price shown
  })

  it('Ctrl-C at the prompt exits 130 and stores nothing', async () => {
    const env = baseEnv('b')
    const r = await onPty('--no-color agent login', env, [{ waitFor: 'Agent API key', type: '\x03' }])
    expect(r.code).toBe(130)
    expect(r.screen).not.toMatch(/\x1b\[[0-9;]*m/) // --no-color reaches the prompt too
    expect(
      existsSync(join(tmp, 'b', 'config.json')) ? JSON.parse(readFileSync(join(tmp, 'b', 'config.json'), 'utf8')) : {},
    ).toEqual({})
  })

  it('without a terminal nothing prompts: a usage error names the flag', () => {
    const r = spawnSync(process.execPath, ['bin/parx.js', 'auth', 'user', 'login'], {
      env: baseEnv('c'),
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toMatch(/missing --user-key: pass --user-key <value>/)
    const j = spawnSync(process.execPath, ['bin/parx.js', '-o', 'json', 'agent', 'login'], {
      env: baseEnv('c'),
      encoding: 'utf8',
    })
    expect(j.status).toBe(2)
    expect(JSON.parse(j.stdout)).toEqual({ error: expect.stringMatching(/--agent-key/), code: 'USAGE' })
  })

  it('on a zero-width terminal the spinner draws nothing; NO_COLOR leaves no colour; Ctrl-C on serve exits 130', async () => {
    const env = { ...baseEnv('d'), NO_COLOR: '1' }
    const r = await onPty(
      `serve --port 0 --data-dir ${join(tmp, 'd-data')} --log-level warn`,
      env,
      [{ waitFor: 'Press Ctrl-C', type: '\x03' }],
      'stty cols 0 rows 0; ',
    )
    expect(r.code, r.screen).toBe(130)
    expect(r.screen).toMatch(/parx is ready/)
    expect(r.screen).not.toMatch(/\x1b\[/) // no cursor codes, no colour
    expect(r.screen.length).toBeLessThan(4000)
  }, 120_000)
})
