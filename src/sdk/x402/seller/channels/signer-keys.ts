import { wNAF, normalizeZ } from '@noble/curves/abstract/curve'
import { secp256k1 } from '@noble/curves/secp256k1'
import { keccak256, type Address, type Hex } from 'viem'

type Point = InstanceType<typeof secp256k1.ProjectivePoint>
const Point = secp256k1.ProjectivePoint
const N = secp256k1.CURVE.n
const HALF_N = N >> 1n

/**
 * Window of a signer key's table: 2^(W-1) x (256/W + 1) points, ~520 points (~80 KB) at 4, built
 * in ~2.5 ms; a verification then costs ~60 point additions for the key's half. Wider windows save
 * little (W=6: 0.44 against 0.53 ms per voucher) for 3x the memory and build time.
 */
const KEY_WINDOW = 4
/** The generator's table, built once per process (~20 ms, ~0.8 MB): ~33 additions per verification. */
const BASE_WINDOW = 8
/**
 * Our own 256-bit windows. noble's tables live in a cache keyed by the point object and shared by
 * every wNAF instance, and its own ones (Point.BASE's) are laid out for its 128-bit endomorphism
 * split, so this module multiplies only points it created itself (a copy of G, the cached keys)
 * and never hands them to noble's multiply(), which would read our tables with its layout.
 */
const tables = new wNAF(Point, 256)
const normalize = (points: Point[]) => normalizeZ(Point, points)
let base: Point | undefined
const G = () => {
  if (!base) {
    base = Point.fromAffine(Point.BASE.toAffine())
    tables.createCache(base, BASE_WINDOW)
  }
  return base
}

/** A 65-byte signature as the settlement contract's ECDSA.recoverCalldata accepts it: r in [1, n), low s, v 27 or 28. */
function parse(signature: Hex): { r: bigint; s: bigint; odd: boolean } | undefined {
  if (signature.length !== 132 || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130), 16)
  if (r === 0n || r >= N || s === 0n || s > HALF_N || (v !== 27 && v !== 28)) return undefined
  return { r, s, odd: v === 28 }
}

const addressOf = (key: Point): string => keccak256(key.toRawBytes(false).subarray(1)).slice(-40).toLowerCase()

export type SignerKeys = {
  /**
   * Whether `signature` over `digest` (32 bytes) is `signer`'s, with the same answer as recovering
   * the signer from it (and with what the contract accepts: low s, v 27/28).
   */
  verify(signer: Address, digest: Uint8Array, signature: Hex): boolean
  /** Signer keys held now. */
  readonly size: number
}

/**
 * Voucher signatures checked against the signer's public key rather than recovered: a channel's
 * payer authorizer signs every voucher of the channel, and the seller knows which address must
 * have signed. The first voucher of a signer is recovered (~2 ms: a square root and a
 * multiplication by a point seen once) and, when it is that address's, its key is kept; later
 * vouchers are verified against the key with precomputed tables for it and for G (~0.5 ms). A key
 * enters only through a recovery that yields its address, so a signature by any other key, or over
 * other bytes, fails either way. At most `max` keys, least recently used out first; an evicted
 * signer is simply recovered again.
 *
 * @example
 * const keys = signerKeys({ max: 256 })
 * keys.verify(config.payerAuthorizer, voucherDigest(chainId, channelId, amount), signature) // true | false
 */
export function signerKeys(o: { max: number }): SignerKeys {
  const keys = new Map<string, { key: Point; tabled: boolean }>()
  return {
    get size() {
      return keys.size
    },
    verify(signer, digest, signature) {
      const sig = parse(signature)
      if (!sig || digest.length !== 32) return false
      const id = signer.toLowerCase()
      const held = keys.get(id)
      if (!held) {
        let key: Point
        try {
          key = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.odd ? 1 : 0).recoverPublicKey(digest) as Point
        } catch {
          return false
        }
        if (`0x${addressOf(key)}` !== id) return false
        // A fresh instance: the key object is ours alone (see `tables`).
        keys.set(id, { key: Point.fromAffine(key.toAffine()), tabled: false })
        if (keys.size > o.max) keys.delete(keys.keys().next().value!)
        return true
      }
      keys.delete(id)
      keys.set(id, held)
      // The table is built at a signer's second voucher: a one-voucher buyer never pays for it.
      if (!held.tabled) {
        tables.createCache(held.key, KEY_WINDOW)
        held.tabled = true
      }
      // R = (h/s)·G + (r/s)·Q must be the point the signature names: x = r (not r + n, which v cannot say) and y's parity = v.
      const h = BigInt(`0x${Buffer.from(digest).toString('hex')}`) % N
      const w = Point.Fn.inv(sig.s)
      const R = tables.unsafe(held.key, Point.Fn.mul(sig.r, w), normalize, tables.unsafe(G(), Point.Fn.mul(h, w), normalize))
      if (R.is0()) return false
      const { x, y } = R.toAffine()
      return x === sig.r && (y & 1n) === (sig.odd ? 1n : 0n)
    },
  }
}
