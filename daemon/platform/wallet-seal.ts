import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { BaseError } from '../../src/errors/index.js'

/**
 * Agent wallet keys (and webhook secrets) at rest: AES-256-GCM under a key derived from the
 * platform wallet key (the 0600 keys file on the local profile, `keys.platformWallet` /
 * PARX_PLATFORM_WALLET_KEY on real ones). The associated data is the owner's id (the agent id), so
 * a sealed key copied onto another agent's row does not open.
 *
 * Formats:
 * - `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url): the AES key is HKDF-SHA256 of the platform
 *   key under the label `parx wallet seal v2`, so it is never the key that derives the MPP secret
 *   (`parx mpp challenge v2`); the key id (HKDF under `parx key id`, 8 bytes hex) names the platform
 *   key that sealed it, so a deployment holding an old and a new key knows which opens it.
 * - `v1.<iv>.<tag>.<ciphertext>`: before key ids, the platform key itself was the AES key. Still
 *   opened (tried under every key held): an agent wallet that cannot be opened is money lost.
 *
 * Rotation (docs/hosting.md "Hosting safely"): the new key as `keys.platformWallet`, the old one in
 * `keys.platformWalletPrevious`, then `parx keys reseal` seals everything under the new one.
 */
export type WalletSeal = {
  /** Seals under the current key, format v2. */
  seal(ownerId: string, privateKey: Hex): string
  /** Opens any format under any key held; throws when none opens it. */
  open(ownerId: string, sealed: string): Hex
  /** True when `sealed` is v2 under the current key: nothing to re-seal. */
  isCurrent(sealed: string): boolean
  /** The current platform key's id. */
  keyId: string
}

/** Distinct HKDF labels: one platform key, independent keys for each use. */
export const KEY_LABELS = {
  walletSeal: 'parx wallet seal v2',
  mppChallenge: 'parx mpp challenge v2',
  keyId: 'parx key id',
} as const

/** The platform key's bytes; refuses anything but 32 bytes of hex. */
export function platformKeyBytes(keyHex: string): Buffer {
  const key = Buffer.from(keyHex.replace(/^0x/, ''), 'hex')
  if (key.length !== 32 || !/^(0x)?[0-9a-fA-F]{64}$/.test(keyHex))
    throw new BaseError('CONFIG_INVALID', 'the platform wallet key must be 32 bytes of hex')
  return key
}

/** HKDF-SHA256 of the platform key under `label` (no salt: the platform key is uniformly random). */
export function derivedKey(keyHex: string, label: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', platformKeyBytes(keyHex), Buffer.alloc(0), label, length))
}

/** The id sealed values carry: names a platform key without revealing anything of it. */
export function platformKeyId(keyHex: string): string {
  return derivedKey(keyHex, KEY_LABELS.keyId, 8).toString('hex')
}

/**
 * The HMAC key of MPP challenges: the first is issued, every one is accepted. It is the HKDF of the
 * current platform key; challenges issued before this derivation (SHA-256 of `parx mpp challenge:`
 * and the key) and under previous platform keys still validate until they expire (5 minutes).
 */
export function mppSecrets(current: string, previous: readonly string[] = []): string[] {
  const of = (k: string) => [
    derivedKey(k, KEY_LABELS.mppChallenge).toString('hex'),
    createHash('sha256').update(`parx mpp challenge:${k}`).digest('hex'),
  ]
  return [...new Set([current, ...previous].flatMap(of))]
}

const b64 = (b: Buffer) => b.toString('base64url')

function gcmOpen(key: Buffer, ownerId: string, iv: string, tag: string, ct: string): Hex {
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  d.setAAD(Buffer.from(ownerId, 'utf8'))
  d.setAuthTag(Buffer.from(tag, 'base64url'))
  return `0x${Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('hex')}` as Hex
}

/**
 * The seal of a deployment: `keyHex` seals and opens; each of `previous` (platform keys before a
 * rotation) only opens.
 *
 * @example
 * const s = walletSeal(newKey, [oldKey])
 * s.open(agent.id, agent.wallet_sealed) // sealed under either
 * s.isCurrent(agent.wallet_sealed)      // false until `parx keys reseal` re-sealed it
 */
/** A replica missing the key a wallet was sealed under is an operator's setting to fix, not a bug: 503, named. */
const keyUnavailable = (what: string) =>
  new BaseError(
    'WALLET_KEY_UNAVAILABLE',
    `${what}: give every replica the same keys.platformWallet / PARX_PLATFORM_WALLET_KEY ` +
      `(and the previous key in keys.platformWalletPrevious); nothing was signed`,
  )

export function walletSeal(keyHex: string, previous: readonly string[] = []): WalletSeal {
  const all = [
    keyHex,
    ...previous.filter((k) => k.replace(/^0x/, '').toLowerCase() !== keyHex.replace(/^0x/, '').toLowerCase()),
  ]
  const keys = all.map((k) => ({
    id: platformKeyId(k),
    raw: platformKeyBytes(k),
    seal: derivedKey(k, KEY_LABELS.walletSeal),
  }))
  const current = keys[0]!
  return {
    keyId: current.id,
    seal(ownerId, privateKey) {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', current.seal, iv)
      c.setAAD(Buffer.from(ownerId, 'utf8'))
      const ct = Buffer.concat([c.update(Buffer.from(privateKey.slice(2), 'hex')), c.final()])
      return ['v2', current.id, b64(iv), b64(c.getAuthTag()), b64(ct)].join('.')
    },
    open(ownerId, sealed) {
      const parts = sealed.split('.')
      if (parts[0] === 'v2' && parts.length === 5) {
        const [, id, iv, tag, ct] = parts as [string, string, string, string, string]
        const k = keys.find((x) => x.id === id)
        if (!k)
          throw keyUnavailable(`this wallet was sealed under platform key ${id}, which this replica does not hold`)
        return gcmOpen(k.seal, ownerId, iv, tag, ct)
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        const [, iv, tag, ct] = parts as [string, string, string, string]
        // No key id: the tag tells which key sealed it.
        for (const k of keys) {
          try {
            return gcmOpen(k.raw, ownerId, iv, tag, ct)
          } catch {}
        }
        throw keyUnavailable('no platform key this replica holds opens this wallet (sealed in format v1)')
      }
      throw new BaseError(
        'INTERNAL',
        'a sealed wallet in the store is in no format parx knows; the store was edited by hand or is damaged',
      )
    },
    isCurrent: (sealed) => sealed.startsWith(`v2.${current.id}.`),
  }
}
