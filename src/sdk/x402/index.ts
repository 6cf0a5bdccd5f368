/**
 * x402 for parx users: a paying fetch for buyers, a payment gate for Node HTTP sellers, scheme
 * plugins for the official @x402/core (client, server and facilitator sides of erc2612 and
 * delegated-spl), the payment-identifier extension and the facilitator's status routes, and the
 * protocol's types and reason strings.
 */
export { wrapFetchWithPayment, settlementOf, type PayingFetchOptions } from './client/fetch.js'
export type { PayerKeys } from './client/payer.js'
export { CHANNEL_DEFAULTS, ChannelWallet, type ChannelOptions, type ChannelReader } from './client/batch-settlement.js'
export { paymentGate, type PaymentGateOptions, type RouteTerms } from './seller/middleware.js'
export { facilitatorClient, type FacilitatorClientOptions } from './seller/facilitator-client.js'
export type { Price } from './seller/offers.js'
export type { SellerHooks, SellerHookContext } from './seller/hooks.js'
export type { HookAbort, PaymentHooks } from './hooks.js'
export { bazaarExtension, type BazaarExtension } from './seller/bazaar.js'
export type { DiscoveryResource, DiscoveryResourcesResponse, DiscoveryQuery } from './bazaar.js'
export { settleAmount, SETTLEMENT_OVERRIDES_HEADER } from './seller/usage.js'
export { ParxEvmClientScheme } from './plugins/evm-client.js'
export { ParxEvmServerScheme } from './plugins/evm-server.js'
export { ParxEvmFacilitatorScheme } from './plugins/evm-facilitator.js'
export { ParxSvmClientScheme, ParxSvmUptoClientScheme } from './plugins/svm-client.js'
export { ParxSvmServerScheme } from './plugins/svm-server.js'
export { ParxSvmFacilitatorScheme, memoryNonceStore, type NonceStore } from './plugins/svm-facilitator.js'
export { keypairSigner, splMessage, type MessageSigner } from './svm/delegated-spl.js'
export { createSplUptoPayload, splUptoMessage } from './svm/upto.js'
export { signErc2612Payment, signEip3009Payment, type TypedDataSigner } from './evm/sign.js'
export { reasons, type Reason } from './reasons.js'
export { PAYMENT_IDENTIFIER, declarePaymentIdentifier, isValidPaymentId, newPaymentId, withPaymentId } from './payment-identifier.js'
export { statusPaths, type PaymentStatus, type TransactionStatus } from './status.js'
export * from './types.js'
