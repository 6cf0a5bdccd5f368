import { concat, type Hex, keccak256, toHex } from 'viem'
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import type { ParxConfig } from '../../../../src/config/schema.js'

const cache = new Map<Hex, PrivateKeyAccount>()

const account = (key: Hex) => {
  let a = cache.get(key)
  if (!a) cache.set(key, (a = privateKeyToAccount(key)))
  return a
}

/**
 * The local profile's authorizer key: derived from the facilitator key with a fixed label, so nothing new is stored.
 */
export const derivedAuthorizerKey = (facilitatorKey: Hex): Hex =>
  keccak256(concat([toHex('parx x402 batch-settlement receiver authorizer v1'), facilitatorKey]))

/**
 * The receiver authorizer this facilitator offers to sellers who delegate claim and refund
 * authorization (`extra.receiverAuthorizer` in /supported), or none. A key of its own, never the
 * facilitator key: that is an EIP-7702 executor account, and the settlement contract checks a
 * signer with code by ERC-1271, which the executor does not answer.
 *
 * Configured (`keys.batchReceiverAuthorizer`, PARX_BATCH_RECEIVER_AUTHORIZER_KEY): that key, the
 * same on every replica. Not configured: derived from the facilitator key on the local profile;
 * none on testnet and mainnet, where /supported then names no receiverAuthorizer (as the
 * reference facilitator without an authorizer signer), sellers who name their own sign their
 * claims and refunds, and the platform creates no batch-settlement endpoint
 * (BATCH_AUTHORIZER_NOT_CONFIGURED): its channels must name an authorizer parx holds. Offering one is an operator's
 * decision: whoever holds the key can refund any
 * delegating seller's unclaimed escrow, so it is not conjured from another secret there.
 */
export function receiverAuthorizer(s: {
  profile: ParxConfig['profile']
  keys: { facilitator: Hex; batchReceiverAuthorizer?: Hex }
}): PrivateKeyAccount | undefined {
  if (s.keys.batchReceiverAuthorizer) return account(s.keys.batchReceiverAuthorizer)
  return s.profile === 'local' ? account(derivedAuthorizerKey(s.keys.facilitator)) : undefined
}
