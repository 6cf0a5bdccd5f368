import { describe, expect, it } from 'vitest'
import { manifest } from '../../src/sdk/platform/manifest.js'
import { buildManifest } from './manifest.js'

describe('platform manifest', () => {
  it('describes the profile agent networks from the registry and matches the contract schema', () => {
    const m = buildManifest({
      profile: 'local',
      version: '0.1.0',
      facilitatorUrl: 'http://127.0.0.1:1/facilitator',
      tokenAddress: () => null,
    })
    expect(manifest.parse(m)).toEqual(m)
    expect(m.networks.map((n) => [n.key, n.sendMethod, n.tokens.map((t) => t.symbol), n.swapPairs.length])).toEqual([
      ['local-base', 'userOperation', ['USDC', 'PUSD', 'XUSD'], 3],
      ['local-radius', 'transfer', ['PUSD'], 0],
    ])
    expect(m.routes).toContainEqual({ method: 'GET', path: '/api/agents/me', summary: expect.any(String) })
    expect(m.routes).toContainEqual({ method: 'POST', path: '/api/agents/:id/swap', summary: expect.any(String) })
    // User-only routes are not an agent's to call.
    expect(m.routes.find((r) => r.path === '/api/agents/:id/keys')).toBeUndefined()
  })

  it('publishes the receipt signer and the typed data domain; null where the deployment has no receipt key', () => {
    const signer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const m = buildManifest({
      profile: 'local',
      version: '0.1.0',
      facilitatorUrl: 'x',
      tokenAddress: () => null,
      receiptSigner: signer,
    })
    expect(manifest.parse(m).receipts).toEqual({
      signer,
      domain: { name: 'parx receipt', version: '1' },
      primaryType: 'Receipt',
    })
    expect(
      buildManifest({ profile: 'mainnet', version: '0.1.0', facilitatorUrl: 'x', tokenAddress: () => null }).receipts
        .signer,
    ).toBeNull()
    expect(m.routes).toContainEqual({
      method: 'GET',
      path: '/api/agents/:id/receipts/:paymentId',
      summary: expect.any(String),
    })
  })

  it('serves the mainnet networks on mainnet; tempo only once a profile serves it', () => {
    const m = buildManifest({
      profile: 'mainnet',
      version: '0.1.0',
      facilitatorUrl: 'x',
      tokenAddress: (n, s) => (n === 'base' && s === 'USDC' ? '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' : null),
    })
    expect(m.networks.map((n) => n.key)).toEqual(['base', 'radius'])
    expect(m.networks[0]!.tokens[0]).toEqual({
      symbol: 'USDC',
      decimals: 6,
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    })
  })
})
