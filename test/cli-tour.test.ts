import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, erc20Abi, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * The README's agent tour as a user runs it: the compiled `parx` binary (bin/parx.js, built by
 * vitest's globalSetup) spawned against a real daemon, every step with `--output json` parsed.
 */
let d: TestDaemon
let upstream: Server
let upstreamUrl = ''
const tmp = mkdtempSync(join(tmpdir(), 'parx-tour-'))
const configDir = join(tmp, 'config')

beforeAll(async () => {
  d = await startTestDaemon()
  upstream = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ weather: 'sunny' })),
  )
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/weather`
}, 120_000)
afterAll(async () => {
  await new Promise((r) => upstream?.close(r))
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

type Run = { code: number | null; stdout: string; stderr: string; json: any }

/** `parx <args> --output json` as a script runs it: no terminal, credentials in the temp config dir. */
function parx(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_API_URL: d.urls.api,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_CONFIG_DIR: configDir,
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    PARX_DATA_DIR: d.dataDir,
    PARX_OPERATOR_TOKEN: d.services.keys.operatorToken,
    NO_COLOR: '1',
    PARX_AGENT_KEY: '',
    PARX_AGENT_ID: '',
    PARX_USER_KEY: '',
    ...extraEnv,
  }
  const child = spawn(process.execPath, ['bin/parx.js', ...args, '--output', 'json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  return new Promise((resolve) =>
    child.once('close', (code) => {
      let json: any
      try {
        json = JSON.parse(stdout)
      } catch {}
      resolve({ code, stdout, stderr, json })
    }),
  )
}
async function ok(args: string[], extraEnv?: NodeJS.ProcessEnv) {
  const r = await parx(args, extraEnv)
  expect(r.code, `parx ${args.join(' ')}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0)
  expect(r.json, `stdout is one JSON document: ${r.stdout}`).toBeDefined()
  return r.json
}

const fresh = () => privateKeyToAccount(generatePrivateKey()).address
const tokenBalance = (network: string, owner: Address, symbol = 'PUSD') => {
  const chain = d.services.evm[network]!
  return chain.client.readContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}

describe('parx tour against a real daemon', () => {
  it('user, agents, keys, whoami, balance, send, swap, endpoint, pay, limits, manifest, logout', async () => {
    const created = await ok(['user', 'create', '--name', 'tourist'])
    expect(created.userKey).toMatch(/\S{16,}/)
    expect(created.user.name).toBe('tourist')
    const userKey: string = created.userKey

    const login = await ok(['auth', 'user', 'login', '--user-key', userKey])
    expect(JSON.stringify(login)).not.toContain(userKey)
    expect(statSync(join(configDir, 'config.json')).mode & 0o777).toBe(0o600)
    const me = await ok(['user', 'whoami'])
    expect(me).toMatchObject({ id: created.user.id, name: 'tourist', agents: 0, endpoints: 0 })

    const base = await ok(['agent', 'create', '--name', 'buyer', '--network', 'local-base'])
    expect(base).toMatchObject({ name: 'buyer', network: 'local-base' })
    expect(base.wallet).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const radius = await ok(['agent', 'create', '--name', 'runner', '--network', 'local-radius'])
    expect(radius).toMatchObject({ name: 'runner', network: 'local-radius' })
    const list = await ok(['agent', 'list'])
    expect(list.agents.map((a: any) => a.id).sort()).toEqual([base.id, radius.id].sort())

    const key = await ok(['agent', 'key', 'create', '--agent', base.id])
    expect(key.agentKey).toMatch(/\S{16,}/)
    const agentLogin = await ok(['agent', 'login', '--agent-key', key.agentKey])
    expect(JSON.stringify(agentLogin)).not.toContain(key.agentKey)

    const who = await ok(['whoami'])
    expect(who).toMatchObject({ id: base.id, network: 'local-base', wallet: base.wallet })

    await ok(['faucet', '--network', 'local-base', '--to', base.wallet, '--token', 'PUSD', '--amount', '10'])
    await ok(['faucet', '--network', 'local-base', '--to', base.wallet, '--token', 'USDC', '--amount', '5'])
    const bal = await ok(['balance'])
    // PUSD has 18 decimals on local-base (6 on local-radius); amounts are decimal strings either way.
    expect(bal.tokens).toEqual(
      expect.arrayContaining([
        { symbol: 'PUSD', decimals: 18, amount: '10', raw: parseUnits('10', 18).toString() },
        { symbol: 'USDC', decimals: 6, amount: '5', raw: '5000000' },
      ]),
    )

    const to = fresh()
    const sent = await ok(['send', '--to', to, '--amount', '1.5'])
    expect(sent).toMatchObject({
      agentId: base.id,
      network: 'local-base',
      token: 'PUSD',
      amount: '1.5',
      to,
      status: 'confirmed',
    })
    expect(await tokenBalance('local-base', base.wallet)).toBe(parseUnits('8.5', 18))
    expect(await tokenBalance('local-base', to)).toBe(parseUnits('1.5', 18))

    // local-radius: a second key, used through PARX_AGENT_KEY the way an agent's environment gives it.
    const rkey = await ok(['agent', 'key', 'create', '--agent', radius.id])
    await ok(['faucet', '--network', 'local-radius', '--to', radius.wallet, '--token', 'PUSD', '--amount', '4'])
    const rto = fresh()
    const rsent = await ok(['send', '--to', rto, '--amount', '2.25'], {
      PARX_AGENT_KEY: rkey.agentKey,
      PARX_AGENT_ID: radius.id,
    })
    expect(rsent).toMatchObject({
      agentId: radius.id,
      network: 'local-radius',
      token: 'PUSD',
      amount: '2.25',
      to: rto,
      status: 'confirmed',
    })
    expect(await tokenBalance('local-radius', radius.wallet)).toBe(1_750_000n)
    expect(await tokenBalance('local-radius', rto)).toBe(2_250_000n)

    const swapped = await ok(['swap', '--from', 'USDC', '--to', 'PUSD', '--amount', '2'])
    expect(swapped).toMatchObject({
      agentId: base.id,
      network: 'local-base',
      from: { token: 'USDC', amount: '2' },
      to: { token: 'PUSD' },
      status: 'included',
    })
    expect(await tokenBalance('local-base', base.wallet, 'USDC')).toBe(3_000_000n)
    expect(await tokenBalance('local-base', base.wallet)).toBeGreaterThan(parseUnits('8.5', 18))

    const ep = await ok([
      'endpoint',
      'create',
      '--upstream',
      upstreamUrl,
      '--price',
      '0.25',
      '--network',
      'local-base',
      '--token',
      'PUSD',
      '--pay-to',
      radius.wallet,
      '--name',
      'weather',
    ])
    expect(ep).toMatchObject({ upstreamUrl, price: '0.25', network: 'local-base', token: 'PUSD' })
    const eps = await ok(['endpoint', 'list'])
    expect(eps.endpoints.map((e: any) => e.id)).toContain(ep.id)
    const listed = await ok([
      'endpoint',
      'update',
      ep.id,
      '--discoverable',
      'yes',
      '--webhook-url',
      'http://127.0.0.1:9/hook',
    ])
    expect(listed).toMatchObject({
      id: ep.id,
      discoverable: true,
      webhookUrl: 'http://127.0.0.1:9/hook',
      webhookSecret: expect.stringMatching(/^whsec_/),
    })

    const before = await tokenBalance('local-base', base.wallet)
    const sellerBefore = await tokenBalance('local-base', radius.wallet)
    const paid = await ok(['pay', '--url', ep.url, '--yes'])
    expect(paid).toMatchObject({ status: 200 })
    expect(JSON.stringify(paid)).toContain('sunny')
    expect(await tokenBalance('local-base', base.wallet)).toBe(before - parseUnits('0.25', 18))
    expect(await tokenBalance('local-base', radius.wallet)).toBe(sellerBefore + parseUnits('0.25', 18))

    const limits = await ok(['agent', 'limits', '--per-payment', '0.1'])
    expect(limits).toMatchObject({ perPaymentUsd: '0.1', dailyUsd: null, allowedHosts: null })
    const refused = await parx(['pay', '--url', ep.url, '--yes'])
    expect(refused.code, refused.stdout + refused.stderr).toBe(7)
    expect(refused.json).toMatchObject({ code: 'LIMIT_EXCEEDED', error: expect.stringContaining('per-payment limit') })
    expect(await tokenBalance('local-base', base.wallet)).toBe(before - parseUnits('0.25', 18))

    const manifest = await ok(['manifest'])
    expect(manifest).toMatchObject({ name: 'parx', limits: { currency: 'USD', countedBy: ['pay', 'send', 'swap'] } })
    expect(manifest.networks.map((n: any) => n.key)).toEqual(expect.arrayContaining(['local-base', 'local-radius']))

    const out = await ok(['logout'])
    expect(out.removed.sort()).toEqual(['agentId', 'agentKey', 'userKey'])
    const after = await parx(['whoami'])
    expect(after.code).toBe(4)
  }, 300_000)
})
