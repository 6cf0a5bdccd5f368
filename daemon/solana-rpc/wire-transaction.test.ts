import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { decodeWireTransaction, readCanonicalLegacy } from './wire-transaction.js'

function signed(version: 'legacy' | 0): Uint8Array {
  const payer = Keypair.generate()
  const instructions = [
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 5 }),
    { programId: new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'), keys: [], data: Buffer.alloc(200, 1) },
  ]
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
    instructions,
  })
  const tx = new VersionedTransaction(version === 0 ? message.compileToV0Message() : message.compileToLegacyMessage())
  tx.sign([payer])
  return tx.serialize()
}

describe('decodeWireTransaction', () => {
  for (const version of ['legacy', 0] as const) {
    it(`keeps canonical ${version} bytes as they are and names the static keys`, () => {
      const wire = signed(version)
      const d = decodeWireTransaction(wire)
      expect(Buffer.from(d.bytes).equals(Buffer.from(wire))).toBe(true)
      expect(d.bytes).toBe(wire)
      expect(d.staticKeys).toEqual(d.tx.message.staticAccountKeys.map((k) => k.toBase58()))
    })

    it(`never hands on ${version} bytes with trailing garbage or a non-minimal length prefix as given`, () => {
      const wire = signed(version)
      // Trailing bytes, and one signature counted as a two-byte compact-u16 (0x81 0x00) instead of
      // 0x01: refused by the parser, or handed on in canonical form, never as given.
      for (const odd of [
        Buffer.concat([wire, Buffer.from([1, 2, 3])]),
        Buffer.concat([Buffer.from([0x81, 0x00]), wire.subarray(1)]),
      ]) {
        let bytes: Uint8Array | undefined
        try {
          bytes = decodeWireTransaction(odd).bytes
        } catch {}
        if (bytes) expect(Buffer.from(bytes).equals(Buffer.from(wire))).toBe(true)
      }
    })
  }
})

describe('readCanonicalLegacy', () => {
  it('reads a canonical legacy transaction as decodeWireTransaction does, signed or not', () => {
    const wire = signed('legacy')
    const unsigned = Uint8Array.from(wire)
    unsigned.fill(0, 1, 65)
    for (const bytes of [wire, unsigned]) {
      const d = decodeWireTransaction(bytes)
      expect(readCanonicalLegacy(bytes)).toEqual({
        bytes: d.bytes,
        version: d.version,
        recentBlockhash: d.recentBlockhash,
        fullySigned: d.fullySigned,
      })
    }
    expect(readCanonicalLegacy(unsigned)!.fullySigned).toBe(false)
  })

  it('leaves anything else to decodeWireTransaction: v0, trailing or missing bytes, a non-minimal prefix, an index out of range', () => {
    const wire = Buffer.from(signed('legacy'))
    const outOfRange = Buffer.from(wire)
    // The first instruction's program index: after the signature, header, keys and blockhash.
    const keys = wire[1 + 64 + 3]!
    outOfRange[1 + 64 + 3 + 1 + 32 * keys + 32 + 1] = keys
    const odd = [
      signed(0),
      Buffer.concat([wire, Buffer.from([1])]),
      wire.subarray(0, wire.length - 1),
      wire.subarray(0, 70),
      Buffer.concat([Buffer.from([0x81, 0x00]), wire.subarray(1)]),
      outOfRange,
      new Uint8Array(),
      new Uint8Array(2000),
    ]
    for (const bytes of odd) expect(readCanonicalLegacy(bytes)).toBeUndefined()
  })
})
