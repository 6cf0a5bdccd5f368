import { createPrivateKey, sign, type KeyObject } from 'node:crypto'
import type { Keypair } from '@solana/web3.js'

// DER header of a PKCS#8 Ed25519 private key; the 32-byte seed follows it.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex')

const keys = new WeakMap<Keypair, KeyObject>()

/** Node's private key object of a 32-byte Ed25519 seed (the first half of a Solana secret key). */
export function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' })
}

/**
 * Ed25519 signature of `message` by `keypair` through Node's native crypto: the same signature
 * web3.js computes in JavaScript, some thirty times faster, on the path of every swap build.
 */
export function signMessage(keypair: Keypair, message: Uint8Array): Uint8Array {
  let key = keys.get(keypair)
  if (!key) {
    key = ed25519PrivateKey(keypair.secretKey.subarray(0, 32))
    keys.set(keypair, key)
  }
  return new Uint8Array(sign(null, message, key))
}
