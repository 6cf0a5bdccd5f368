/**
 * The deployed code of the auth-capture stack's collectors and token stores, by version
 * (src/sdk/x402/evm/auth-capture/contracts.ts places it on the embedded chains).
 */
export { deployedBytecode as erc3009CollectorCodeV1_0 } from './artifacts/AuthCaptureERC3009CollectorV1_0.js'
export { deployedBytecode as erc3009CollectorCodeV1_1 } from './artifacts/AuthCaptureERC3009CollectorV1_1.js'
export { deployedBytecode as refundCollectorCodeV1_0 } from './artifacts/AuthCaptureOperatorRefundCollectorV1_0.js'
export { deployedBytecode as refundCollectorCodeV1_1 } from './artifacts/AuthCaptureOperatorRefundCollectorV1_1.js'
export { deployedBytecode as permit2CollectorCodeV1_0 } from './artifacts/AuthCapturePermit2CollectorV1_0.js'
export { deployedBytecode as permit2CollectorCodeV1_1 } from './artifacts/AuthCapturePermit2CollectorV1_1.js'
export { deployedBytecode as tokenStoreCodeV1_0 } from './artifacts/AuthCaptureTokenStoreV1_0.js'
export { deployedBytecode as tokenStoreCodeV1_1 } from './artifacts/AuthCaptureTokenStoreV1_1.js'
