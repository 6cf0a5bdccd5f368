/**
 * x402 for parx users: a paying fetch for buyers, a payment gate for Node HTTP sellers, scheme
 * plugins for the official @x402/core (client, server and facilitator sides of erc2612 and
 * delegated-spl), the payment-identifier extension and the facilitator's status routes, and the
 * protocol's types and reason strings.
 */

export type { DiscoveryQuery, DiscoveryResource, DiscoveryResourcesResponse } from './bazaar.js'
export { CHANNEL_DEFAULTS, type ChannelOptions, type ChannelReader, ChannelWallet } from './client/batch-settlement.js'
export { type PayingFetchOptions, settlementOf, wrapFetchWithPayment } from './client/fetch.js'
export type { PayerKeys } from './client/payer.js'
export { signEip3009Payment, signErc2612Payment, type TypedDataSigner } from './evm/sign.js'
export type { HookAbort, PaymentHooks } from './hooks.js'
export {
  declarePaymentIdentifier,
  isValidPaymentId,
  newPaymentId,
  PAYMENT_IDENTIFIER,
  withPaymentId,
} from './payment-identifier.js'
export { ParxEvmClientScheme } from './plugins/evm-client.js'
export { ParxEvmFacilitatorScheme } from './plugins/evm-facilitator.js'
export { ParxEvmServerScheme } from './plugins/evm-server.js'
export { ParxSvmClientScheme, ParxSvmUptoClientScheme } from './plugins/svm-client.js'
export { memoryNonceStore, type NonceStore, ParxSvmFacilitatorScheme } from './plugins/svm-facilitator.js'
export { ParxSvmServerScheme } from './plugins/svm-server.js'
export { type Reason, reasons } from './reasons.js'
export { type BazaarExtension, bazaarExtension } from './seller/bazaar.js'
export { type FacilitatorClientOptions, facilitatorClient } from './seller/facilitator-client.js'
export type { SellerHookContext, SellerHooks } from './seller/hooks.js'
export { type PaymentGateOptions, paymentGate, type RouteTerms } from './seller/middleware.js'
export type { Price } from './seller/offers.js'
export { SETTLEMENT_OVERRIDES_HEADER, settleAmount } from './seller/usage.js'
export { type PaymentStatus, statusPaths, type TransactionStatus } from './status.js'
export { keypairSigner, type MessageSigner, splMessage } from './svm/delegated-spl.js'
export { createSplUptoPayload, splUptoMessage } from './svm/upto.js'
export * from './types.js'
