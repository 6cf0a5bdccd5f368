import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { derivedAuthorizerKey, receiverAuthorizer } from './authorizer.js'

describe('the receiver authorizer batch-settlement offers delegating sellers', () => {
  const facilitator = generatePrivateKey()

  it('is derived from the facilitator key on the local profile (not the facilitator key itself)', () => {
    const a = receiverAuthorizer({ profile: 'local', keys: { facilitator } })
    expect(a?.address).toBe(privateKeyToAccount(derivedAuthorizerKey(facilitator)).address)
    expect(a?.address).not.toBe(privateKeyToAccount(facilitator).address)
  })

  it('is none on testnet and mainnet unless configured, and the configured key wherever it is', () => {
    expect(receiverAuthorizer({ profile: 'testnet', keys: { facilitator } })).toBeUndefined()
    expect(receiverAuthorizer({ profile: 'mainnet', keys: { facilitator } })).toBeUndefined()
    const configured = generatePrivateKey()
    for (const profile of ['local', 'testnet', 'mainnet'] as const) {
      expect(receiverAuthorizer({ profile, keys: { facilitator, batchReceiverAuthorizer: configured } })?.address).toBe(
        privateKeyToAccount(configured).address,
      )
    }
  })
})
