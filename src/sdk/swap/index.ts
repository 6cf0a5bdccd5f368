export { createSwapClient, SwapNotIncludedError, type SwapClient, type SwapClientParameters, type PrepareParameters } from './client.js'
export { orderDomain, permitDomain, signSwap, splitSignature, type SignedSwap, type SwapSigner } from './sign.js'
export {
  ORDER_DOMAIN_NAME, ORDER_DOMAIN_VERSION, permitMessage, permitTypes, rfqOrderTypes, toWireOrder,
  type RfqOrder, type SwapRequestBody, type TypedDomain, type WireOrder,
} from './order.js'
export type { BaseInfo, ConfirmResult, Nonces, RedeemQuote, SwapAccepted, SwapEvent } from './types.js'
