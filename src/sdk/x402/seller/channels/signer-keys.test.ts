import { secp256k1 } from '@noble/curves/secp256k1'
import { hashTypedData, numberToHex, recoverTypedDataAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { voucherTypedData } from '../../evm/batch-settlement/contracts.js'
import { voucherDigest } from '../../evm/batch-settlement/voucher-digest.js'
import { signerKeys } from './signer-keys.js'

const CHAIN = 8453
const channelId = `0x${'5a'.repeat(32)}` as Hex
const buyer = privateKeyToAccount(generatePrivateKey())
const sign = (amount: bigint, by = buyer, id = channelId) => by.signTypedData(voucherTypedData(CHAIN, id, amount))
const digest = (amount: bigint, id = channelId) => voucherDigest(CHAIN, id, amount)
/** The same signature with s -> n - s and the other v: recovers the same key, but the contract refuses it. */
const malleate = (sig: Hex): Hex => {
  const s = secp256k1.CURVE.n - BigInt(`0x${sig.slice(66, 130)}`)
  return `${sig.slice(0, 66)}${numberToHex(s, { size: 32 }).slice(2)}${sig.endsWith('1b') ? '1c' : '1b'}` as Hex
}

describe('voucher digest', () => {
  it("is viem's EIP-712 hash of the voucher, for any id and amount up to uint128", () => {
    for (const amount of [0n, 1n, 255n, 256n, 10n ** 18n, 2n ** 128n - 1n]) {
      const id = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex')}` as Hex
      expect(Buffer.from(voucherDigest(CHAIN, id, amount)).toString('hex')).toBe(hashTypedData(voucherTypedData(CHAIN, id, amount)).slice(2))
      expect(Buffer.from(voucherDigest(1, id, amount)).toString('hex')).toBe(hashTypedData(voucherTypedData(1, id, amount)).slice(2))
    }
    expect(() => voucherDigest(CHAIN, channelId, 2n ** 128n)).toThrow(RangeError)
  })
})

describe('signer keys', () => {
  it('accepts the signer\'s vouchers, first by recovery and then against its kept key', async () => {
    const keys = signerKeys({ max: 4 })
    for (let i = 1n; i <= 5n; i++) expect(keys.verify(buyer.address, digest(i * 1000n), await sign(i * 1000n))).toBe(true)
    expect(keys.size).toBe(1)
  })

  it('refuses, with the key kept, a voucher signed by another key', async () => {
    const keys = signerKeys({ max: 4 })
    const other = privateKeyToAccount(generatePrivateKey())
    expect(keys.verify(buyer.address, digest(1000n), await sign(1000n))).toBe(true)
    expect(keys.verify(buyer.address, digest(2000n), await sign(2000n))).toBe(true) // now tabled
    expect(keys.verify(buyer.address, digest(3000n), await sign(3000n, other))).toBe(false)
    // And the other key's own vouchers are its, not the buyer's.
    expect(keys.verify(other.address, digest(3000n), await sign(3000n, other))).toBe(true)
    expect(keys.verify(buyer.address, digest(3000n), await sign(3000n, other))).toBe(false)
  })

  it('refuses a tampered voucher: another amount, another channel, a changed byte, a malleated or truncated signature', async () => {
    const keys = signerKeys({ max: 4 })
    const sig = await sign(2000n)
    expect(keys.verify(buyer.address, digest(1000n), await sign(1000n))).toBe(true)
    for (const k of [keys, signerKeys({ max: 4 })]) {
      expect(k.verify(buyer.address, digest(2001n), sig)).toBe(false)
      expect(k.verify(buyer.address, digest(2000n, `0x${'5b'.repeat(32)}`), sig)).toBe(false)
      const flipped = `${sig.slice(0, 20)}${sig[20] === '0' ? '1' : '0'}${sig.slice(21)}` as Hex
      expect(k.verify(buyer.address, digest(2000n), flipped)).toBe(false)
      // Still the buyer's key by recovery, which is why the contract checks s and v: so do we.
      expect(await recoverTypedDataAddress({ ...voucherTypedData(CHAIN, channelId, 2000n), signature: malleate(sig) })).toBe(buyer.address)
      expect(k.verify(buyer.address, digest(2000n), malleate(sig))).toBe(false)
      expect(k.verify(buyer.address, digest(2000n), `${sig.slice(0, 130)}01` as Hex)).toBe(false)
      expect(k.verify(buyer.address, digest(2000n), sig.slice(0, 130) as Hex)).toBe(false)
      expect(k.verify(buyer.address, digest(2000n), sig)).toBe(true)
    }
  })

  it('agrees with recovery on the other parity: a signature whose v is flipped names another key', async () => {
    const keys = signerKeys({ max: 4 })
    expect(keys.verify(buyer.address, digest(1000n), await sign(1000n))).toBe(true)
    for (let i = 2n; i < 8n; i++) {
      const sig = await sign(i * 1000n)
      const flipped = `${sig.slice(0, 130)}${sig.endsWith('1b') ? '1c' : '1b'}` as Hex
      expect(keys.verify(buyer.address, digest(i * 1000n), flipped)).toBe(false)
      expect(keys.verify(buyer.address, digest(i * 1000n), sig)).toBe(true)
    }
  })

  it('holds at most max keys, the least recently used out first, and still verifies an evicted signer', async () => {
    const keys = signerKeys({ max: 3 })
    const buyers = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()))
    for (const b of buyers) {
      expect(keys.verify(b.address, digest(1000n), await sign(1000n, b))).toBe(true)
      expect(keys.size).toBeLessThanOrEqual(3)
    }
    expect(keys.size).toBe(3)
    // buyers[0] was evicted: recovered again, and the wrong key is still refused.
    expect(keys.verify(buyers[0]!.address, digest(2000n), await sign(2000n, buyers[0]))).toBe(true)
    expect(keys.verify(buyers[1]!.address, digest(2000n), await sign(2000n, buyers[0]))).toBe(false)
    expect(keys.size).toBe(3)
  })
})
