import { createPrivateKey, createPublicKey, type KeyObject, verify } from 'node:crypto'
import bs58 from 'bs58'

// DER headers of Ed25519 keys: PKCS#8 (the 32-byte seed follows) and SPKI (the 32-byte public key follows).
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex')

/** Node's private key object of a 32-byte Ed25519 seed (the first half of a Solana secret key). */
export function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' })
}

/** Node's public key object of a 32-byte Ed25519 public key (a Solana address's bytes). */
export function ed25519PublicKey(bytes: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, bytes]), format: 'der', type: 'spki' })
}

/** Whether `signature` is `signer`'s (a base58 address) over `message`; false for anything malformed. */
export function ed25519Verifies(message: Uint8Array, signature: Uint8Array, signer: string): boolean {
  try {
    return signature.length === 64 && verify(null, message, ed25519PublicKey(bs58.decode(signer)), signature)
  } catch {
    return false
  }
}
