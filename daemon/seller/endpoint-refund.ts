import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/index.js'
import type { RefundAnswer } from '../../src/sdk/platform/refunds.js'
import { fromBaseUnits, toBaseUnits } from '../../src/sdk/units.js'
import { refundHold } from '../../src/sdk/x402/seller/auth-capture/lifecycle.js'
import type { HoldRecord, HoldStore } from '../../src/sdk/x402/seller/auth-capture/store.js'
import type { SellerFacilitator } from '../../src/sdk/x402/seller/facilitator-client.js'
import type { SettleResponse } from '../../src/sdk/x402/types.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { AgentRow } from '../platform/store.js'
import type { EndpointRow, EndpointStore } from './endpoints.js'

export type EndpointRefundDeps = {
  endpoints: EndpointStore
  holds: HoldStore
  evm: Record<string, EvmChain>
  /** The in-process facilitator acting for this payTo (./paid-facilitator.ts): the seller's consent to the refund. */
  facilitatorFor: (payTo: string) => SellerFacilitator
  agent: (id: string) => Promise<AgentRow | undefined>
  walletKey: (agent: AgentRow) => Hex
  /** Told the refund (the settlement webhook). */
  onRefunded?: (o: { endpoint: EndpointRow; hold: HoldRecord; result: SettleResponse }) => Promise<void>
}

/**
 * A seller refunds a captured auth-capture payment of one of its endpoints: the hold's tag names
 * the endpoint, which must be the user's (another user's payment is HOLD_NOT_FOUND, as one that
 * does not exist). The endpoint's payTo is one of the user's agents (required at creation), so the
 * platform signs the refund's funding with that wallet: the refund comes from what the seller was
 * paid, never from the facilitator.
 */
export async function refundEndpointPayment(
  d: EndpointRefundDeps,
  userId: string,
  body: { paymentId: string; amount?: string },
): Promise<RefundAnswer> {
  const id = body.paymentId as Hex
  const hold = await d.holds.get(id)
  const endpoint = hold?.tag ? await d.endpoints.owned(userId, hold.tag) : undefined
  if (!hold || !endpoint) throw new BaseError('HOLD_NOT_FOUND', `no auth-capture payment ${id} of your endpoints`)
  const chain = d.evm[endpoint.network]
  const token = chain?.tokens[endpoint.token]
  if (!chain || !token)
    throw new BaseError('CHAIN_UNAVAILABLE', `${endpoint.network} is not served by this deployment now`)
  const agent = endpoint.pay_to_agent_id ? await d.agent(endpoint.pay_to_agent_id) : undefined
  if (!agent || agent.address.toLowerCase() !== hold.payTo.toLowerCase()) {
    throw new BaseError(
      'REFUND_REFUSED',
      `the payment was paid to ${hold.payTo}, a wallet the platform does not hold: refund ` +
        `it from that wallet (src/sdk/x402/seller/auth-capture/lifecycle.ts refundHold)`,
    )
  }
  const amount = body.amount === undefined ? undefined : toBaseUnits(body.amount, token.decimals).toString()
  const result = await refundHold({ facilitator: d.facilitatorFor(hold.payTo), store: d.holds }, id, {
    amount,
    signer: privateKeyToAccount(d.walletKey(agent)),
  })
  if (!result.success)
    throw new BaseError(
      'REFUND_REFUSED',
      `the facilitator refused the refund: ` +
        `${result.errorReason}${result.errorMessage ? ` (${result.errorMessage})` : ''}; nothing moved`,
    )
  const after = (await d.holds.get(id)) ?? hold
  await d.onRefunded?.({ endpoint, hold: after, result }).catch(() => {})
  const refunded = BigInt(result.amount ?? '0')
  return {
    paymentId: id,
    endpointId: endpoint.id,
    network: endpoint.network,
    token: endpoint.token,
    amount: fromBaseUnits(refunded, token.decimals),
    amountRaw: refunded.toString(),
    captured: fromBaseUnits(BigInt(after.captured), token.decimals),
    refunded: fromBaseUnits(BigInt(after.refunded), token.decimals),
    transaction: result.transaction,
    refundDeadline: new Date(after.refundDeadline * 1000).toISOString(),
  }
}
