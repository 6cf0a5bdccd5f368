import bs58 from 'bs58'
import { describe, expect, it, vi } from 'vitest'
import { decodeBase58Of, isBase58Of } from './encoded-size.js'

describe('isBase58Of', () => {
  it('accepts a real public key and signature', () => {
    expect(isBase58Of(bs58.encode(new Uint8Array(32).fill(7)), 32)).toBe(true)
    expect(decodeBase58Of(bs58.encode(new Uint8Array(64).fill(9)), 64)).toHaveLength(64)
  })

  it('refuses text longer than the value can be without decoding it', () => {
    const decode = vi.spyOn(bs58, 'decode')
    expect(isBase58Of('1'.repeat(100_000), 32)).toBe(false)
    expect(isBase58Of('2'.repeat(63_000), 64)).toBe(false)
    expect(decode).not.toHaveBeenCalled()
    decode.mockRestore()
  })

  it('refuses wrong lengths and non-strings', () => {
    expect(isBase58Of(bs58.encode(new Uint8Array(31).fill(1)), 32)).toBe(false)
    expect(isBase58Of('0OIl', 32)).toBe(false)
    expect(isBase58Of(42, 32)).toBe(false)
    expect(isBase58Of('', 64)).toBe(false)
  })
})
