import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Hex } from 'viem'

/**
 * Agent wallet keys at rest: AES-256-GCM under the platform wallet key (the 0600 keys file on the
 * local profile, `keys.platformWallet` / PARX_PLATFORM_WALLET_KEY on real ones). The agent id is
 * the associated data, so a sealed key copied onto another agent's row does not open.
 * Format: `v1.<iv b64url>.<tag b64url>.<ciphertext b64url>`.
 */
export type WalletSeal = {
  seal(agentId: string, privateKey: Hex): string
  open(agentId: string, sealed: string): Hex
}

export function walletSeal(keyHex: string): WalletSeal {
  const key = Buffer.from(keyHex.replace(/^0x/, ''), 'hex')
  if (key.length !== 32) throw new Error('the platform wallet key must be 32 bytes of hex')
  return {
    seal(agentId, privateKey) {
      const iv = randomBytes(12)
      const c = createCipheriv('aes-256-gcm', key, iv)
      c.setAAD(Buffer.from(agentId, 'utf8'))
      const ct = Buffer.concat([c.update(Buffer.from(privateKey.slice(2), 'hex')), c.final()])
      return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
    },
    open(agentId, sealed) {
      const [v, iv, tag, ct] = sealed.split('.')
      if (v !== 'v1' || !iv || !tag || !ct) throw new Error('unknown sealed wallet format')
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
      d.setAAD(Buffer.from(agentId, 'utf8'))
      d.setAuthTag(Buffer.from(tag, 'base64url'))
      return `0x${Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('hex')}` as Hex
    },
  }
}
