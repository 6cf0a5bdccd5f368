export {
  createSwapClient,
  type PrepareParameters,
  type SwapClient,
  type SwapClientParameters,
  SwapNotIncludedError,
} from './client.js'
export {
  ORDER_DOMAIN_NAME,
  ORDER_DOMAIN_VERSION,
  permitMessage,
  permitTypes,
  type RfqOrder,
  rfqOrderTypes,
  type SwapRequestBody,
  type TypedDomain,
  toWireOrder,
  type WireOrder,
} from './order.js'
export { orderDomain, permitDomain, type SignedSwap, type SwapSigner, signSwap, splitSignature } from './sign.js'
export type { BaseInfo, ConfirmResult, Nonces, RedeemQuote, SwapAccepted, SwapEvent } from './types.js'
