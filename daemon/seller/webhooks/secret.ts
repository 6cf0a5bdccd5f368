import { createHmac, randomBytes } from 'node:crypto'
import { BaseError } from '../../../src/errors/base.js'
import type { WalletSeal } from '../../platform/wallet-seal.js'

/** The secret's printed form, as Standard Webhooks writes it: `whsec_` + base64 of 32 random bytes. */
export const SECRET_PREFIX = 'whsec_'

/**
 * Webhook signing secrets. The seller sees one once (create, update); we keep it to sign, sealed
 * under the platform wallet key with the endpoint id as associated data (as agent wallet keys are),
 * or as it is on a deployment without a wallet key (`raw.` marks it).
 */
export type WebhookSecrets = {
  make(endpointId: string): { shown: string; stored: string }
  /** The HMAC key bytes of a stored secret. */
  key(endpointId: string, stored: string): Buffer
}

export function webhookSecrets(seal: WalletSeal | undefined): WebhookSecrets {
  return {
    make(endpointId) {
      const bytes = randomBytes(32)
      const stored = seal
        ? seal.seal(`webhook:${endpointId}`, `0x${bytes.toString('hex')}`)
        : `raw.${bytes.toString('base64')}`
      return { shown: `${SECRET_PREFIX}${bytes.toString('base64')}`, stored }
    },
    key(endpointId, stored) {
      if (stored.startsWith('raw.')) return Buffer.from(stored.slice(4), 'base64')
      if (!seal)
        throw new BaseError(
          'WALLET_KEY_UNAVAILABLE',
          'this webhook secret was sealed under a platform wallet key this deployment does not have',
        )
      return Buffer.from(seal.open(`webhook:${endpointId}`, stored).slice(2), 'hex')
    },
  }
}

/**
 * The `webhook-signature` value: `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}` (Standard
 * Webhooks), so any of its verification libraries checks ours.
 */
export function webhookSignature(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}
