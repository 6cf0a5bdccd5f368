import { getAddress, type Hex, hashTypedData } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import {
  ORDER_DOMAIN_NAME,
  ORDER_DOMAIN_VERSION,
  permitMessage,
  permitTypes,
  type RfqOrder,
} from '../../src/sdk/swap/order.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'
import { wrongSigner } from './order-checks.js'

/**
 * Signatures are judged by the router itself, in the simulation, which also covers ERC-1271 wallets
 * and costs the happy path nothing. When it refuses one, these recover it locally to say exactly
 * what was signed wrong.
 */

/** After BadSignature: what orderSig recovers to, and the domain it must be signed in. */
export async function orderSignatureError(
  chain: EvmChain,
  order: RfqOrder,
  orderHash: Hex,
  orderSig: Hex,
): Promise<BaseError> {
  const recovered = await wrongSigner(orderHash, orderSig, order.user)
  const got = recovered ? ` (it recovers to ${recovered})` : recovered === null ? ' (not a valid signature)' : ''
  return new BaseError(
    'INVALID_SIGNATURE',
    `orderSig does not recover to order.user ${getAddress(order.user)}${got} under the domain { ` +
      `name: '${ORDER_DOMAIN_NAME}', version: '${ORDER_DOMAIN_VERSION}', chainId: ${chain.chainId}, ` +
      `verifyingContract: ${chain.contracts.router} }: sign the order with the user's key in that domain`,
  )
}

/**
 * After InsufficientAllowance: the permit did not verify and no standing allowance covers the input.
 * The permit is fixed by the order (owner = user, spender = router, value = inputAmount,
 * deadline = order.deadline, nonce = the token's nonces(user)), so only its domain or key can be wrong.
 */
export async function permitSignatureError(
  chain: EvmChain,
  input: EvmToken,
  order: RfqOrder,
  sig: { v: number; r: Hex; s: Hex },
  permitNonce: bigint,
): Promise<BaseError> {
  const router = chain.contracts.router!
  const domain = { ...input.permitDomain!, chainId: chain.chainId, verifyingContract: input.address }
  const digest = hashTypedData({
    domain,
    types: permitTypes,
    primaryType: 'Permit',
    message: permitMessage(order, router, permitNonce),
  })
  const recovered = await wrongSigner(digest, sig, order.user)
  const got = recovered ? ` (it recovers to ${recovered})` : recovered === null ? ' (not a valid signature)' : ''
  return new BaseError(
    'INVALID_SIGNATURE',
    `the permit (v, r, s) does not verify for ${getAddress(order.user)}${got} under ` +
      `${input.symbol}'s permit domain { name: '${domain.name}', version: '${domain.version}' ` +
      `}: sign the EIP-2612 permit in that domain with owner = user, spender = router ` +
      `${router}, value = inputAmount, nonce = ${permitNonce}, deadline = order.deadline`,
  )
}
