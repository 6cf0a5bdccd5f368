import { type Hex, isAddressEqual, type TypedDataDefinition, zeroAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Failure, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import type { Terms } from './terms.js'

/**
 * The receiver authorizer's consent to a relayed charge or lifecycle operation. A signature sent
 * must be `extra.receiverAuthorizer`'s over exactly this operation (ECDSA, or ERC-1271 when the
 * authorizer is a contract). None sent: the seller delegated its authorizer to this facilitator,
 * whose signature would then prove nothing of the seller's intent, so the request itself must be
 * the seller's: a partner key bound to `payTo` (`parx keys create --owner <payTo>`, sent as
 * x-api-key), as for batch-settlement refunds. Anyone else, the payer included, is refused.
 * Nothing on chain reads this consent under `delegated`: this check is the whole gate.
 */
export async function consented(
  rt: EvmRuntime,
  p: Resolved,
  t: Terms,
  typed: TypedDataDefinition,
  sent: Hex | undefined,
  authorizer: PrivateKeyAccount | undefined,
  invalid: Failure['reason'] = reasons.acAuthorizerSignature,
): Promise<Failure | undefined> {
  if (isAddressEqual(t.receiverAuthorizer, zeroAddress))
    return {
      reason: reasons.acMissingReceiverAuthorizer,
      message: 'extra.receiverAuthorizer is zero: this route is collect-only',
    }
  if (sent) {
    const ok = await rt.chain.client
      .verifyTypedData({ address: t.receiverAuthorizer, ...typed, signature: sent } as never)
      .catch(() => false)
    return ok
      ? undefined
      : {
          reason: invalid,
          message: `the authorizer signature is not ${t.receiverAuthorizer}'s over this ${String(typed.primaryType)}`,
        }
  }
  if (!authorizer || !isAddressEqual(authorizer.address, t.receiverAuthorizer)) {
    return {
      reason: invalid,
      message:
        `no authorizer signature, and the receiver authorizer ` +
        `${t.receiverAuthorizer} is not one this facilitator signs for`,
    }
  }
  const wallet = await p.caller?.wallet()
  if (!wallet || !isAddressEqual(wallet as Hex, p.requirements.payTo as Hex)) {
    return {
      reason: reasons.acUnauthenticatedAuthorizerRequest,
      message:
        `this facilitator consents for ${t.receiverAuthorizer} only when the seller ${p.requirements.payTo} ` +
        `asks: send a partner key bound to it in x-api-key${wallet ? ` (this key is bound to ${wallet})` : ''}`,
    }
  }
  return undefined
}
