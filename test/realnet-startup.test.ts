import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { startDaemon } from '../daemon/main.js'
import { main } from '../src/cli/main.js'
import { loadConfig } from '../src/config/load.js'
import { BaseError } from '../src/errors/index.js'
import { LOCAL_BASE_CHAIN_ID } from '../src/networks/registry.js'
import { toWireOrder } from '../src/sdk/swap/index.js'
import { startTestDaemon } from './helpers/daemon.js'

/** Start-up on a real-network profile, as a new user meets it (issue 8 item 7). */
let chains: StandaloneChains
/** `parx chains` as the local profile: chains that answer, but are not the testnet networks. */
let localChains: StandaloneChains
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

beforeAll(async () => {
  chains = await startStandaloneChains({ as: 'testnet', dataDir: tempDir('parx-chains-'), port: 0 })
  localChains = await startStandaloneChains({ as: 'local', dataDir: tempDir('parx-chains-local-'), port: 0 })
})
afterAll(async () => {
  await chains?.stop()
  await localChains?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function refusal(env: NodeJS.ProcessEnv): Promise<BaseError> {
  const dataDir = join(tempDir('parx-refused-'), 'data')
  const config = loadConfig({ env, file: {}, flags: { port: 0, dataDir, logLevel: 'silent' } })
  const error = await startDaemon(config).then(
    async (d) => {
      await d.stop()
      throw new Error('the daemon started')
    },
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(BaseError)
  // Refused before anything was made: no data dir, no key file, no chain.
  expect(existsSync(dataDir)).toBe(false)
  return error as BaseError
}

describe('a testnet daemon that cannot work refuses to start, saying everything to fix at once', () => {
  it('lists every missing key, RPC URL and token address in one message, each with its variable', async () => {
    const e = await refusal({ PARX_PROFILE: 'testnet' })
    expect(e.code).toBe('CONFIG_INVALID')
    for (const name of [
      'PARX_SOLVER_KEY',
      'PARX_FACILITATOR_KEY',
      'PARX_SOLANA_SOLVER_KEY',
      'PARX_SOLANA_FACILITATOR_KEY',
      'PARX_ATTESTOR_KEYS',
      'PARX_SOLANA_ATTESTOR_KEYS',
      'PARX_OPERATOR_TOKEN',
      'PARX_RPC_BASE_SEPOLIA',
      'PARX_RPC_RADIUS_TESTNET',
      'PARX_RPC_SOLANA_DEVNET',
      'serve.contracts["base-sepolia"].USDC',
      'serve.contracts["base-sepolia"].PUSD',
      'serve.contracts["radius-testnet"].USDC',
      'serve.contracts["solana-devnet"].XUSD',
      'PARX_CONTRACTS_BASE_SEPOLIA',
      'serve.publicOrigin: missing',
      'PARX_PUBLIC_ORIGIN',
    ])
      expect(e.details).toContain(name)
    // The hints name only variables that exist.
    expect(e.details).not.toMatch(/PARX_ATTESTOR_KEY\b|PARX_OPERATOR TOKEN/)
    expect(e.message).toMatch(/\d+ problems/)
  })

  it('the CLI prints the same list and exits non-zero', async () => {
    const out: string[] = []
    const dataDir = join(tempDir('parx-cli-'), 'data')
    const code = await main(['node', 'parx', 'serve', '--profile', 'testnet', '--port', '0', '--data-dir', dataDir], {
      stdout: (s: string) => out.push(s),
      stderr: (s: string) => out.push(s),
      env: { PARX_CONFIG_DIR: tempDir('parx-conf-'), PARX_SOLVER_KEY: 'nope' },
    })
    expect(code).not.toBe(0)
    const text = out.join('\n')
    expect(text).toContain('serve.keys.solver: not a 32-byte hex private key')
    expect(text).toContain('PARX_RPC_SOLANA_DEVNET')
    expect(text).toContain('PARX_OPERATOR_TOKEN')
  })

  it('refuses an RPC of another chain: eth_chainId and the Solana genesis hash are checked against the registry', async () => {
    const wrongBase = localChains.rpc['local-base']!
    const e = await refusal({
      ...chains.env,
      PARX_RPC_BASE_SEPOLIA: wrongBase,
      PARX_RPC_SOLANA_DEVNET: localChains.rpc['local-solana']!,
    })
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.details).toContain(
      `serve.rpc["base-sepolia"]: ${wrongBase} serves chain id ${LOCAL_BASE_CHAIN_ID}, not base-sepolia's 84532`,
    )
    expect(e.details).toMatch(/serve\.rpc\["solana-devnet"\]: .* has genesis hash ParxLoca1/)
    expect(e.details).not.toContain('radius-testnet')
  })

  it('refuses a configuration complete but for its public origin, naming PARX_PUBLIC_ORIGIN (issue 25 item 4)', async () => {
    const { PARX_PUBLIC_ORIGIN: _origin, ...withoutOrigin } = chains.env
    const e = await refusal(withoutOrigin)
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.message).toContain('1 problem in the configuration')
    expect(e.details).toContain(
      'serve.publicOrigin: missing (sign-in messages are bound to it); set PARX_PUBLIC_ORIGIN to the origin users open the dashboard at',
    )
    const http = await refusal({ ...chains.env, PARX_PUBLIC_ORIGIN: 'http://pay.example.com' })
    expect(http.details).toContain("serve.publicOrigin: 'http://pay.example.com' is plain http")
  })

  it('refuses an RPC that does not answer, and a malformed address', async () => {
    const contracts = JSON.parse(chains.env.PARX_CONTRACTS_RADIUS_TESTNET!)
    const e = await refusal({
      ...chains.env,
      PARX_RPC_RADIUS_TESTNET: 'http://127.0.0.1:9/',
      PARX_CONTRACTS_RADIUS_TESTNET: JSON.stringify({ ...contracts, USDC: '0x1234' }),
    })
    expect(e.details).toContain('serve.rpc["radius-testnet"]: http://127.0.0.1:9/ did not answer eth_chainId')
    expect(e.details).toContain(`serve.contracts["radius-testnet"].USDC: '0x1234' is not an EVM address`)
  })
})

describe('a surface whose contract is not configured is off, with the reason, and nothing answers 500', () => {
  it('without a router: Base swaps are disabled in /api/capabilities with the key to set; /api/base/info answers; a swap gets FLOW_DISABLED', async () => {
    const { router: _router, ...withoutRouter } = JSON.parse(chains.env.PARX_CONTRACTS_BASE_SEPOLIA!)
    const d = await startTestDaemon({
      env: { ...chains.env, PARX_CONTRACTS_BASE_SEPOLIA: JSON.stringify(withoutRouter) },
    })
    try {
      const caps = await d.call('/api/capabilities')
      for (const flow of ['base.entry', 'base.swap', 'base.redeem']) {
        expect(caps.flows[flow]).toMatchObject({
          enabled: false,
          reason: expect.stringContaining('serve.contracts["base-sepolia"].router'),
        })
      }
      expect(caps.flows['sol.swap']).toMatchObject({ enabled: true })
      expect(caps.flows['sol.swap'].reason).toBeUndefined()
      const info = await d.raw('/api/base/info')
      expect(info.status).toBe(200)
      expect(info.body).toMatchObject({ chainId: 84532, router: null })
      const apiKey = await d.partnerKey()
      const user = privateKeyToAccount(generatePrivateKey()).address
      // A well-formed (unsigned) entry order: refused for the flow before anything reads the missing router.
      const order = toWireOrder({
        user,
        inputToken: info.body.usdc,
        inputAmount: 1_000_000n,
        outputToken: info.body.out.PUSD.addr,
        minOutputAmount: 1_000_000n,
        solver: info.body.solver,
        deadline: 2_000_000_000n,
        nonce: 0n,
      })
      const sig = `0x${'11'.repeat(65)}`
      const swap = await d.raw('/api/base/swap', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({
          user,
          uiAmount: '1',
          in: 'USDC',
          out: 'PUSD',
          order,
          orderSig: sig,
          v: 27,
          r: `0x${'11'.repeat(32)}`,
          s: `0x${'11'.repeat(32)}`,
        }),
      })
      expect(swap.status, JSON.stringify(swap.body)).toBe(403)
      expect(swap.body.code).toBe('FLOW_DISABLED')
      const nonces = await d.raw(`/api/base/nonces?owner=${user}`, { headers: { 'x-api-key': apiKey } })
      expect(nonces.status, JSON.stringify(nonces.body)).toBe(403)
      expect(nonces.body.code).toBe('FLOW_DISABLED')
    } finally {
      await d.close()
    }
  })

  it('without a token address it refuses to start, naming the setting', async () => {
    const { USDC: _usdc, ...withoutUsdc } = JSON.parse(chains.env.PARX_CONTRACTS_BASE_SEPOLIA!)
    const e = await refusal({ ...chains.env, PARX_CONTRACTS_BASE_SEPOLIA: JSON.stringify(withoutUsdc) })
    expect(e.details).toContain('serve.contracts["base-sepolia"].USDC: missing')
    expect(e.message).toContain('1 problem in')
  })
})
