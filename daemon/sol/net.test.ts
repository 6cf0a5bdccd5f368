import { describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { networks } from '../../src/networks/registry.js'
import { resolveNet } from './net.js'

const refused = (spec: (typeof networks)[string], net: string) => {
  try {
    resolveNet(spec, net)
  } catch (e) {
    return e instanceof BaseError && e.code === 'BAD_REQUEST' && e.message.includes(`'${net}'`)
  }
  return false
}

describe('resolveNet', () => {
  it("takes SPEC's 'mainnet' as the served network on every profile, and the network's own names", () => {
    for (const key of ['local-solana', 'solana-devnet', 'solana']) {
      const spec = networks[key]!
      for (const net of [undefined, '', 'mainnet', spec.key, spec.legacyName, spec.caip2])
        expect(resolveNet(spec, net)).toBe(key)
    }
  })

  it("takes 'devnet' on the testnet profile only", () => {
    expect(resolveNet(networks['solana-devnet']!, 'devnet')).toBe('solana-devnet')
    expect(refused(networks['local-solana']!, 'devnet')).toBe(true)
    expect(refused(networks.solana!, 'devnet')).toBe(true)
  })

  it('refuses another cluster rather than serving it from this one', () => {
    expect(refused(networks['local-solana']!, 'solana')).toBe(true)
    expect(refused(networks.solana!, 'solana-devnet')).toBe(true)
    expect(refused(networks.solana!, 'testnet')).toBe(true)
    expect(refused(networks.solana!, 'Mainnet')).toBe(true)
  })
})
