import { createRequire } from 'node:module'
import type * as Libsecp256k1 from 'tiny-secp256k1'
import { type Address, type Hex, keccak256 } from 'viem'

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const HALF_N = N >> 1n

/**
 * libsecp256k1 compiled to WebAssembly (tiny-secp256k1): a recovery takes ~0.25 ms of CPU here,
 * against ~1.7 ms for viem's (noble, in JavaScript). Compiling its module takes ~40 ms, so it is
 * loaded at the first check, not when this module is imported: a start that checks nothing never
 * pays for it.
 */
let lib: typeof Libsecp256k1 | undefined
const libsecp256k1 = () => (lib ??= createRequire(import.meta.url)('tiny-secp256k1') as typeof Libsecp256k1)

/**
 * The address that signed `digest` (32 bytes) with `signature`, or undefined, judged as
 * OpenZeppelin's ECDSA judges it on chain (the batch-settlement contract's `recoverCalldata`, the
 * attestor verifier): 65 bytes r‖s‖v, r in [1, n), s in [1, n/2] (low s: the malleated twin of a
 * signature recovers the same key but is refused there, so it is refused here), v 27 or 28.
 * Lower case.
 */
export function recoverSigner(digest: Uint8Array, signature: Hex): Address | undefined {
  if (digest.length !== 32 || signature.length !== 132 || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  const bytes = Buffer.from(signature.slice(2), 'hex')
  const r = BigInt(`0x${signature.slice(2, 66)}`),
    s = BigInt(`0x${signature.slice(66, 130)}`),
    v = bytes[64]!
  if (r === 0n || r >= N || s === 0n || s > HALF_N || (v !== 27 && v !== 28)) return undefined
  let key: Uint8Array | null
  try {
    key = libsecp256k1().recover(digest, bytes.subarray(0, 64), v === 28 ? 1 : 0, false)
  } catch {
    return undefined // an r that is no point's x coordinate ("Expected Signature")
  }
  return key ? (`0x${keccak256(key.subarray(1)).slice(-40)}` as Address) : undefined
}

/**
 * Whether `signature` over `digest` is `signer`'s (recoverSigner's rules): a voucher's payer
 * authorizer, an attestor's key.
 *
 * @example
 * isSignedBy(config.payerAuthorizer, voucherDigest(chainId, channelId, amount), signature) // true | false
 */
export function isSignedBy(signer: Address, digest: Uint8Array, signature: Hex): boolean {
  return recoverSigner(digest, signature) === signer.toLowerCase()
}
