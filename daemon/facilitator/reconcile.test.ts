import { describe, expect, it } from 'vitest'
import { networks } from '../../src/networks/registry.js'
import { isEvmRow } from './reconcile.js'

describe('isEvmRow', () => {
  it('judges a row by its network, so `upto` rows go to the EVM or the Solana fate by where they settled', () => {
    expect(isEvmRow({ network: networks['local-base']!.caip2 })).toBe(true)
    expect(isEvmRow({ network: networks.base!.caip2 })).toBe(true)
    expect(isEvmRow({ network: networks['local-solana']!.caip2 })).toBe(false)
    expect(isEvmRow({ network: networks.solana!.caip2 })).toBe(false)
  })
})
