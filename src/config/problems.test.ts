import { describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'
import { configProblems, surfaceGaps } from './problems.js'

const testnet = (env: Record<string, string>) => loadConfig({ env: { PARX_PROFILE: 'testnet', ...env }, file: {} })

describe('configProblems', () => {
  it('has nothing to say on the local profile', () => {
    expect(configProblems(loadConfig({ env: {}, file: {} }))).toEqual([])
  })

  it('lists every missing setting of an empty testnet config at once', () => {
    const settings = configProblems(testnet({})).map((p) => p.setting)
    expect(settings).toEqual(
      expect.arrayContaining([
        'serve.keys.solver',
        'serve.keys.facilitator',
        'serve.keys.solanaSolver',
        'serve.keys.solanaFacilitator',
        'serve.keys.attestors',
        'serve.keys.solanaAttestors',
        'serve.auth.operatorToken',
        'serve.rpc["base-sepolia"]',
        'serve.rpc["radius-testnet"]',
        'serve.rpc["solana-devnet"]',
        'serve.contracts["base-sepolia"].USDC',
        'serve.contracts["solana-devnet"].PUSD',
        'serve.publicOrigin',
      ]),
    )
    // the public origin + 7 keys + 3 RPC URLs + 3 + 2 + 3 token addresses
    expect(settings).toHaveLength(19)
  })

  it('needs a public origin off the local profile: an https one, or http on a loopback host only', () => {
    const origin = (value?: string, profile = 'testnet') =>
      configProblems(
        loadConfig({ env: { PARX_PROFILE: profile, ...(value ? { PARX_PUBLIC_ORIGIN: value } : {}) }, file: {} }),
      ).find((p) => p.setting === 'serve.publicOrigin')
    expect(origin()).toMatchObject({
      problem: expect.stringContaining('missing'),
      fix: expect.stringContaining('PARX_PUBLIC_ORIGIN'),
    })
    expect(origin('https://pay.example.com')).toBeUndefined()
    expect(origin('https://pay.example.com:8443/')).toBeUndefined()
    expect(origin('http://127.0.0.1:8420')).toBeUndefined()
    expect(origin('http://pay.example.com')!.problem).toContain('plain http')
    expect(origin('https://pay.example.com/dashboard')!.problem).toContain('has a path')
    expect(origin('https://pay.example.com/?x=1')!.problem).toContain('has a path')
    expect(origin('https://u:p@pay.example.com')!.problem).toContain('credentials')
    expect(origin('pay.example.com')!.problem).toContain('not a URL')
    expect(origin('ftp://pay.example.com')!.problem).toContain('not an http(s) URL')
    // The local profile needs none, and checks the one it is given.
    expect(origin(undefined, 'local')).toBeUndefined()
    expect(origin('http://devbox.test:8420', 'local')).toBeUndefined()
    expect(origin('https://pay.example.com/x', 'local')!.problem).toContain('has a path')
  })

  it('reads addresses from PARX_CONTRACTS_<NETWORK> (JSON) and checks their form', () => {
    const c = testnet({
      PARX_CONTRACTS_BASE_SEPOLIA: JSON.stringify({
        USDC: '0x1',
        router: '0x0000000000000000000000000000000000000001',
      }),
    })
    expect(c.contracts['base-sepolia']!.router).toBe('0x0000000000000000000000000000000000000001')
    expect(configProblems(c).find((p) => p.setting === 'serve.contracts["base-sepolia"].USDC')!.problem).toContain(
      'is not an EVM address',
    )
    expect(() => testnet({ PARX_CONTRACTS_BASE_SEPOLIA: '{not json' })).toThrow(
      /PARX_CONTRACTS_BASE_SEPOLIA is not JSON/,
    )
  })

  it('counts three attestor keys', () => {
    const p = configProblems(testnet({ PARX_ATTESTOR_KEYS: `0x${'1'.repeat(64)}` })).find(
      (x) => x.setting === 'serve.keys.attestors',
    )!
    expect(p.problem).toBe('has 1 keys, needs 3')
    expect(p.fix).toContain('PARX_ATTESTOR_KEYS')
  })
})

describe('surfaceGaps', () => {
  it('turns Base swaps off without a router and EVM-origin cross-chain off without its contracts', () => {
    const gaps = surfaceGaps(testnet({}))
    expect(gaps['base.entry']).toContain('serve.contracts["base-sepolia"].router')
    expect(gaps['xchain.evm-origin']).toContain('escrow')
    expect(gaps['xchain.evm-origin']).toContain('solana-devnet destSettler')
    expect(gaps['xchain.sol-origin']).toContain('solana-devnet originSettler')
    expect(gaps['sol.swap']).toBeUndefined()
    expect(surfaceGaps(loadConfig({ env: {}, file: {} }))).toEqual({})
  })
})
