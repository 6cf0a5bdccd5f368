import { createHmac, timingSafeEqual } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { walletSeal } from '../../platform/wallet-seal.js'
import { webhookSecrets, webhookSignature } from './secret.js'

/** The verification recipe of docs/platform-api.md "Settlement webhooks", written out as a receiver would: it must accept what we sign. */
function verify(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${headers.id}.${headers.timestamp}.${body}`).digest()
  return headers.signature.split(' ').some((s) => {
    const [v, sig] = s.split(',')
    const got = Buffer.from(sig ?? '', 'base64')
    return v === 'v1' && got.length === expected.length && timingSafeEqual(got, expected)
  })
}

describe('webhook secrets and signatures', () => {
  it('a shown secret verifies what is signed with the stored one, sealed or not; another body or id does not', () => {
    for (const [sealed, secrets] of [
      [true, webhookSecrets(walletSeal('11'.repeat(32)))],
      [false, webhookSecrets(undefined)],
    ] as const) {
      const { shown, stored } = secrets.make('e1')
      expect(shown).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      // Sealed at rest when the deployment has a platform wallet key.
      expect(stored.includes(shown.slice(6))).toBe(!sealed)
      const body = '{"id":"x","type":"settlement.succeeded"}'
      const signature = webhookSignature(secrets.key('e1', stored), 'evt-1', 1_700_000_000, body)
      expect(verify(shown, { id: 'evt-1', timestamp: '1700000000', signature }, body)).toBe(true)
      expect(verify(shown, { id: 'evt-1', timestamp: '1700000000', signature }, body.replace('x', 'y'))).toBe(false)
      expect(verify(shown, { id: 'evt-2', timestamp: '1700000000', signature }, body)).toBe(false)
    }
  })

  it("a sealed secret does not open for another endpoint's row", () => {
    const secrets = webhookSecrets(walletSeal('22'.repeat(32)))
    const { stored } = secrets.make('e1')
    expect(() => secrets.key('e2', stored)).toThrow()
  })
})
