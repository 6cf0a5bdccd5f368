import { type Hex, hashTypedData } from 'viem'
import { describe, expect, it } from 'vitest'
import { voucherTypedData } from './contracts.js'
import { voucherDigest } from './voucher-digest.js'

const CHAIN = 8453

describe('voucher digest', () => {
  it("is viem's EIP-712 hash of the voucher, for any id and amount up to uint128", () => {
    for (const amount of [0n, 1n, 255n, 256n, 10n ** 18n, 2n ** 128n - 1n]) {
      const id = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex
      expect(Buffer.from(voucherDigest(CHAIN, id, amount)).toString('hex')).toBe(
        hashTypedData(voucherTypedData(CHAIN, id, amount)).slice(2),
      )
      expect(Buffer.from(voucherDigest(1, id, amount)).toString('hex')).toBe(
        hashTypedData(voucherTypedData(1, id, amount)).slice(2),
      )
    }
    expect(() => voucherDigest(CHAIN, `0x${'5a'.repeat(32)}`, 2n ** 128n)).toThrow(RangeError)
  })
})
