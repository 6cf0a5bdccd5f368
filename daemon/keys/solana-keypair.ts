import { createPublicKey } from 'node:crypto'
import { Keypair } from '@solana/web3.js'
import { BaseError } from '../../src/errors/base.js'
import { ed25519PrivateKey } from '../../src/sdk/solana/ed25519-keys.js'

/** The Ed25519 public key of a 32-byte seed, by Node's native crypto (the last 32 bytes of its SPKI DER). */
function publicKeyOf(seed: Uint8Array): Uint8Array {
  return new Uint8Array(createPublicKey(ed25519PrivateKey(seed)).export({ format: 'der', type: 'spki' }).subarray(-32))
}

/**
 * `Keypair.fromSecretKey(secretKey)`, with the public half checked by Node's native ed25519 instead
 * of web3.js's JavaScript one: the first such check in a process builds noble's tables (~80 ms of
 * CPU), then ~1.5 ms each, and `parx serve` made some fifteen of them before its ready line. The
 * same refusal for a secret key whose halves do not match.
 */
export function solanaKeypair(secretKey: Uint8Array): Keypair {
  if (secretKey.byteLength !== 64) throw new BaseError('KEY_FILE_INVALID', 'bad secret key size')
  const publicKey = publicKeyOf(secretKey.subarray(0, 32))
  if (!Buffer.from(publicKey).equals(Buffer.from(secretKey.subarray(32))))
    throw new BaseError('KEY_FILE_INVALID', 'provided secretKey is invalid')
  return Keypair.fromSecretKey(secretKey, { skipValidation: true })
}

/** `Keypair.fromSeed(seed)` by Node's native ed25519 (see solanaKeypair). */
export function solanaKeypairFromSeed(seed: Uint8Array): Keypair {
  if (seed.byteLength !== 32) throw new BaseError('KEY_FILE_INVALID', 'bad seed size')
  const secretKey = new Uint8Array(64)
  secretKey.set(seed)
  secretKey.set(publicKeyOf(seed), 32)
  return Keypair.fromSecretKey(secretKey, { skipValidation: true })
}
