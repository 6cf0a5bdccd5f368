import { createCipheriv, randomBytes } from 'node:crypto'
import type { Hex } from 'viem'

/**
 * How the platform sealed agent wallets and webhook secrets before key ids (format v1, until issue
 * 25): the platform key itself as the AES-256-GCM key. Kept to prove such rows still open.
 */
export function legacySeal(keyHex: string, ownerId: string, privateKey: Hex): string {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', Buffer.from(keyHex.replace(/^0x/, ''), 'hex'), iv)
  c.setAAD(Buffer.from(ownerId, 'utf8'))
  const ct = Buffer.concat([c.update(Buffer.from(privateKey.slice(2), 'hex')), c.final()])
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
}
