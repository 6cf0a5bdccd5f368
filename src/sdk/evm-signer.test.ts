import { secp256k1 } from '@noble/curves/secp256k1'
import { bytesToHex, type Hex, hexToBytes, keccak256, numberToHex, recoverAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { isSignedBy, recoverSigner } from './evm-signer.js'
import { voucherTypedData } from './x402/evm/batch-settlement/contracts.js'
import { voucherDigest } from './x402/evm/batch-settlement/voucher-digest.js'

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

describe('EVM signer (libsecp256k1 recovery)', () => {
  it('recovers what viem recovers, for many keys and digests, on both parities', async () => {
    const parities = new Set<string>()
    for (let i = 0; i < 40; i++) {
      const key = privateKeyToAccount(generatePrivateKey())
      const hash = keccak256(crypto.getRandomValues(new Uint8Array(40)))
      const signature = await key.sign({ hash })
      parities.add(signature.slice(-2))
      expect(recoverSigner(hexToBytes(hash), signature)).toBe(key.address.toLowerCase())
      expect(await recoverAddress({ hash, signature })).toBe(key.address)
    }
    expect(parities).toEqual(new Set(['1b', '1c']))
  })

  it("accepts the signer's vouchers and refuses another key's", async () => {
    const other = privateKeyToAccount(generatePrivateKey())
    for (let i = 1n; i <= 5n; i++)
      expect(isSignedBy(buyer.address, digest(i * 1000n), await sign(i * 1000n))).toBe(true)
    expect(isSignedBy(buyer.address, digest(3000n), await sign(3000n, other))).toBe(false)
    expect(isSignedBy(other.address, digest(3000n), await sign(3000n, other))).toBe(true)
    // The address is compared whatever its case.
    expect(isSignedBy(buyer.address.toLowerCase() as Hex, digest(1000n), await sign(1000n))).toBe(true)
  })

  it('refuses a tampered voucher: another amount, another channel, a changed byte, a malleated or truncated signature, a v the contract refuses', async () => {
    const sig = await sign(2000n)
    expect(isSignedBy(buyer.address, digest(2001n), sig)).toBe(false)
    expect(isSignedBy(buyer.address, digest(2000n, `0x${'5b'.repeat(32)}`), sig)).toBe(false)
    const flipped = `${sig.slice(0, 20)}${sig[20] === '0' ? '1' : '0'}${sig.slice(21)}` as Hex
    expect(isSignedBy(buyer.address, digest(2000n), flipped)).toBe(false)
    // Still the buyer's key by viem's recovery, which is why the contract checks s and v: so do we.
    expect(await recoverAddress({ hash: bytesToHex(digest(2000n)), signature: malleate(sig) })).toBe(buyer.address)
    expect(isSignedBy(buyer.address, digest(2000n), malleate(sig))).toBe(false)
    for (const v of ['00', '01', '1d'])
      expect(isSignedBy(buyer.address, digest(2000n), `${sig.slice(0, 130)}${v}` as Hex)).toBe(false)
    expect(isSignedBy(buyer.address, digest(2000n), sig.slice(0, 130) as Hex)).toBe(false)
    expect(isSignedBy(buyer.address, digest(2000n), `${sig}00` as Hex)).toBe(false)
    expect(isSignedBy(buyer.address, digest(2000n).subarray(1), sig)).toBe(false)
    // r = 0 and r = n name no point.
    expect(recoverSigner(digest(2000n), `0x${'00'.repeat(32)}${sig.slice(66)}` as Hex)).toBeUndefined()
    expect(
      recoverSigner(digest(2000n), `${numberToHex(secp256k1.CURVE.n, { size: 32 })}${sig.slice(66)}` as Hex),
    ).toBeUndefined()
    expect(isSignedBy(buyer.address, digest(2000n), sig)).toBe(true)
  })

  it('answers every 65-byte string without throwing, as viem does when it recovers at all', async () => {
    let recovered = 0
    for (let i = 0; i < 300; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(65))
      bytes[64] = 27 + (i & 1)
      bytes[32]! &= 0x7f // low s
      const hash = crypto.getRandomValues(new Uint8Array(32))
      const signature = bytesToHex(bytes)
      const ours = recoverSigner(hash, signature)
      // About half of all r are no point's x coordinate: viem throws, we answer undefined.
      const theirs = await recoverAddress({ hash: bytesToHex(hash), signature }).catch(() => undefined)
      expect(ours).toBe(theirs?.toLowerCase())
      if (ours) recovered++
    }
    expect(recovered).toBeGreaterThan(50)
  })

  it('agrees with recovery on the other parity: a signature whose v is flipped names another key', async () => {
    for (let i = 1n; i < 8n; i++) {
      const sig = await sign(i * 1000n)
      const otherV = `${sig.slice(0, 130)}${sig.endsWith('1b') ? '1c' : '1b'}` as Hex
      expect(isSignedBy(buyer.address, digest(i * 1000n), otherV)).toBe(false)
      expect(isSignedBy(buyer.address, digest(i * 1000n), sig)).toBe(true)
    }
  })
})
