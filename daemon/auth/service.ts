import { createHash, timingSafeEqual } from 'node:crypto'
import type { ParxConfig } from '../../src/config/schema.js'
import { hashKey, type KeyState, keyPattern, type PartnerKey, type PartnerKeyStore } from './partner-keys.js'
import type { VerdictCache } from './verdict-cache.js'

/** What the HTTP layer asks about credentials. The operator token stays inside. */
export type AuthService = {
  /** Off is the soft-launch mode: partner routes answer without a key. */
  enforce: boolean
  keyPrefix: string
  /** An active partner key (verdicts cached as docs/swap-api.md "Authentication" allows). */
  isPartnerKey(key: string): Promise<boolean>
  isOperatorToken(token: string): boolean
  /** The wallet an active partner key is bound to (`parx keys create --owner`), if any. */
  walletOf(key: string): Promise<string | undefined>
}

export function authService(p: {
  auth: ParxConfig['auth']
  operatorToken: string
  verdicts: VerdictCache
  touch?: (key: string) => Promise<void>
  lookup?: (key: string) => Promise<PartnerKey | undefined>
}): AuthService {
  const pattern = keyPattern(p.auth.keyPrefix)
  return {
    enforce: p.auth.enforce,
    keyPrefix: p.auth.keyPrefix,
    async isPartnerKey(key) {
      const valid = pattern.test(key) && (await p.verdicts.isValid(key))
      // The dashboard's "last used": written off the request's path, and a failed write never fails the request.
      if (valid && p.touch) p.touch(key).catch(() => {})
      return valid
    },
    isOperatorToken: (token) => token.length > 0 && sameSecret(token, p.operatorToken),
    async walletOf(key) {
      if (!pattern.test(key) || !p.lookup) return undefined
      const r = await p.lookup(key)
      return r?.state === 'active' && r.owner ? r.owner : undefined
    },
  }
}

/** Constant-time comparison of secrets of any length (hashing first evens the lengths). */
function sameSecret(a: string, b: string): boolean {
  const h = (x: string) => createHash('sha256').update(x).digest()
  return timingSafeEqual(h(a), h(b))
}

/** The operator's key management (routes under /api/operator/keys); changes apply here at once. */
export type KeysService = {
  create(input: {
    name: string
    description?: string
    owner?: string
    ownerWallet?: string
  }): Promise<{ key: string; record: PartnerKey }>
  list(owner?: string): Promise<PartnerKey[]>
  get(id: string): Promise<PartnerKey | undefined>
  setState(id: string, state: KeyState): Promise<PartnerKey | undefined>
}

/**
 * `publish` announces a change to the other replicas (daemon/auth/key-changes.ts), after it is
 * written; a failed announcement leaves them to their verdict TTLs and never fails the change.
 */
export function keysService(p: {
  keys: PartnerKeyStore
  verdicts: VerdictCache
  publish?: (keyHash: string) => Promise<void>
}): KeysService {
  const announce = (hash: string) => {
    p.verdicts.forget(hash)
    p.publish?.(hash).catch(() => {})
  }
  return {
    async create(input) {
      const created = await p.keys.create(input)
      announce(hashKey(created.key))
      return created
    },
    list: (owner) => p.keys.list(owner),
    get: (id) => p.keys.get(id),
    async setState(id, state) {
      const updated = await p.keys.setState(id, state)
      const hash = await p.keys.hashOf(id)
      if (hash) announce(hash)
      return updated
    },
  }
}
