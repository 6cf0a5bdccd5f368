import { toBaseUnits } from '../../src/sdk/units.js'
import type { Price } from '../../src/sdk/x402/seller/offers.js'
import { methods } from '../../src/sdk/x402/types.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { EndpointRow } from './endpoints.js'

/**
 * The transfer methods an endpoint offers, the reference's first: a stock x402 client takes the
 * first offer and signs EIP-3009 for anything but permit2, so eip3009 (USDC) or permit2 (any
 * token; with the facilitator's EIP-2612 gas sponsoring a wallet without gas can use it) leads;
 * erc2612 (our client's, no approval needed) follows. Our own client skips what it cannot sign.
 */
const REFERENCE_FIRST = (eip3009: boolean) =>
  eip3009 ? [methods.eip3009, methods.erc2612, methods.permit2] : [methods.permit2, methods.erc2612]

/** An endpoint's prices, one per method, as its 402 and its bazaar listing state them. */
export function endpointPrices(e: EndpointRow, chain: EvmChain): Price[] {
  const token = chain.tokens[e.token]!
  const price = {
    network: e.network,
    asset: e.token,
    amount: toBaseUnits(e.price, token.decimals).toString(),
    payTo: e.pay_to,
  }
  const prices: Price[] = REFERENCE_FIRST(token.eip3009 === true).map((method) => ({ ...price, method }))
  // Channels after the per-call offers: a client without the scheme still takes the first it knows.
  if (Number(e.batch_settlement ?? 0) === 1 && token.eip3009 === true)
    prices.push({ ...price, scheme: 'batch-settlement' })
  // Refundable payments: the hold is captured after the upstream answered (src/sdk/x402/seller/auth-capture/).
  if (Number(e.auth_capture ?? 0) === 1 && token.eip3009 === true) prices.push({ ...price, scheme: 'auth-capture' })
  return prices
}
