import { randomBytes } from 'node:crypto'
import { Keypair } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { solanaKeypair, solanaKeypairFromSeed } from './solana-keypair.js'

describe('solanaKeypair', () => {
  it('is the Keypair web3.js makes of the same secret key or seed', () => {
    for (let i = 0; i < 20; i++) {
      const seed = randomBytes(32)
      const expected = Keypair.fromSeed(seed)
      expect(solanaKeypairFromSeed(seed).publicKey.toBase58()).toBe(expected.publicKey.toBase58())
      expect(Buffer.from(solanaKeypairFromSeed(seed).secretKey)).toEqual(Buffer.from(expected.secretKey))
      expect(solanaKeypair(expected.secretKey).publicKey.toBase58()).toBe(expected.publicKey.toBase58())
    }
  })

  it("refuses a secret key whose public half is not its seed's, and one of the wrong size, as web3.js does", () => {
    const a = Keypair.generate()
    const b = Keypair.generate()
    const mixed = new Uint8Array([...a.secretKey.subarray(0, 32), ...b.publicKey.toBytes()])
    expect(() => Keypair.fromSecretKey(mixed)).toThrow('provided secretKey is invalid')
    expect(() => solanaKeypair(mixed)).toThrow('provided secretKey is invalid')
    expect(() => solanaKeypair(a.secretKey.subarray(0, 63))).toThrow('bad secret key size')
  })
})
