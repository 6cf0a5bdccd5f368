import type { PublicKey } from '@solana/web3.js'
import bs58 from 'bs58'

// A PublicKey holds a big number: each toBytes() converts it and each toBase58() encodes it again
// (base58 is quadratic). Keys are immutable, and the hot ones (solver, mints, programs, cached
// token accounts) are the same objects on every build, so both forms are kept per object.
const bytesOf = new WeakMap<PublicKey, Uint8Array>()
const base58Of = new WeakMap<PublicKey, string>()

/** `key.toBytes()`, converted once per PublicKey object; shared, so never written to. */
export function keyBytes(key: PublicKey): Uint8Array {
  let b = bytesOf.get(key)
  if (!b) bytesOf.set(key, (b = key.toBytes()))
  return b
}

/** `key.toBase58()`, encoded once per PublicKey object. */
export function keyBase58(key: PublicKey): string {
  let s = base58Of.get(key)
  if (s === undefined) base58Of.set(key, (s = bs58.encode(keyBytes(key))))
  return s
}
