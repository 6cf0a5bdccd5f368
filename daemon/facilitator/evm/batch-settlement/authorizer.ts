import { concat, keccak256, toHex, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'

const cache = new Map<Hex, PrivateKeyAccount>()

/**
 * The receiver authorizer this facilitator offers to sellers who delegate claim and refund
 * authorization (`extra.receiverAuthorizer` in /supported). Its own key, derived from the
 * facilitator key with a fixed label rather than the facilitator key itself: the facilitator key
 * is an EIP-7702 executor account, and the settlement contract checks a signer with code by
 * ERC-1271, which the executor does not answer. Derived, not configured, so every replica of a
 * hosted facilitator signs as the same address and no new secret has to be stored.
 */
export function receiverAuthorizer(facilitatorKey: Hex): PrivateKeyAccount {
  let a = cache.get(facilitatorKey)
  if (!a) cache.set(facilitatorKey, (a = privateKeyToAccount(keccak256(concat([toHex('parx x402 batch-settlement receiver authorizer v1'), facilitatorKey])))))
  return a
}
