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
    expect(settings).toEqual(expect.arrayContaining([
      'serve.keys.solver', 'serve.keys.facilitator', 'serve.keys.solanaSolver', 'serve.keys.solanaFacilitator',
      'serve.keys.attestors', 'serve.keys.solanaAttestors', 'serve.auth.operatorToken',
      'serve.rpc["base-sepolia"]', 'serve.rpc["radius-testnet"]', 'serve.rpc["solana-devnet"]',
      'serve.contracts["base-sepolia"].USDC', 'serve.contracts["solana-devnet"].PUSD',
    ]))
    // 7 keys + 3 RPC URLs + 3 + 2 + 3 token addresses
    expect(settings).toHaveLength(18)
  })

  it('reads addresses from PARX_CONTRACTS_<NETWORK> (JSON) and checks their form', () => {
    const c = testnet({ PARX_CONTRACTS_BASE_SEPOLIA: JSON.stringify({ USDC: '0x1', router: '0x0000000000000000000000000000000000000001' }) })
    expect(c.contracts['base-sepolia']!.router).toBe('0x0000000000000000000000000000000000000001')
    expect(configProblems(c).find((p) => p.setting === 'serve.contracts["base-sepolia"].USDC')!.problem).toContain('is not an EVM address')
    expect(() => testnet({ PARX_CONTRACTS_BASE_SEPOLIA: '{not json' })).toThrow(/PARX_CONTRACTS_BASE_SEPOLIA is not JSON/)
  })

  it('counts three attestor keys', () => {
    const p = configProblems(testnet({ PARX_ATTESTOR_KEYS: `0x${'1'.repeat(64)}` })).find((x) => x.setting === 'serve.keys.attestors')!
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
