import { createHash, randomBytes } from 'node:crypto'

/**
 * Platform credentials. A user key (`parx-u-` + 64 hex) acts for a user on its agents and
 * endpoints; an agent key (`parx-a-` + 64 hex) acts for one agent only. Both are 32 random bytes,
 * shown once at creation and stored only as their SHA-256 (a key is high-entropy, so a plain hash
 * is enough: nothing to brute-force, and lookup stays one indexed equality).
 */
export type PlatformKeyKind = 'user' | 'agent'

export const KEY_PREFIX: Record<PlatformKeyKind, string> = { user: 'parx-u-', agent: 'parx-a-' }
/**
 * The request header that carries each kind. Partner keys keep `x-api-key`; `Authorization: Bearer` stays the
 * operator's (docs/swap-api.md "Authentication").
 */
export const KEY_HEADER: Record<PlatformKeyKind, string> = { user: 'x-user-key', agent: 'x-agent-key' }

const KEY_RE: Record<PlatformKeyKind, RegExp> = { user: /^parx-u-[0-9a-f]{64}$/, agent: /^parx-a-[0-9a-f]{64}$/ }

/** Which kind a string is by its shape, or undefined when it is neither (a typo, a partner key). */
export function platformKeyKind(key: string): PlatformKeyKind | undefined {
  return KEY_RE.user.test(key) ? 'user' : KEY_RE.agent.test(key) ? 'agent' : undefined
}

/** A new key of the given kind: the only time its plaintext exists on the server. */
export function newPlatformKey(kind: PlatformKeyKind): string {
  return KEY_PREFIX[kind] + randomBytes(32).toString('hex')
}

/** What the store keeps and looks keys up by. */
export function hashPlatformKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** Safe to print and log: the prefix and the last 4 characters (`parx-a-…9f3c`). */
export function maskPlatformKey(key: string): string {
  const kind = platformKeyKind(key)
  return kind ? `${KEY_PREFIX[kind]}…${key.slice(-4)}` : '…' + key.slice(-4)
}
