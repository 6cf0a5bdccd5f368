import type { Address, Hex } from 'viem'
import * as AuthCaptureEscrowV1_0 from '../../../../../contracts/evm/artifacts/AuthCaptureEscrowV1_0.js'
import * as AuthCaptureEscrowV1_1 from '../../../../../contracts/evm/artifacts/AuthCaptureEscrowV1_1.js'
import {
  erc3009CollectorCodeV1_0,
  erc3009CollectorCodeV1_1,
  permit2CollectorCodeV1_0,
  permit2CollectorCodeV1_1,
  refundCollectorCodeV1_0,
  refundCollectorCodeV1_1,
  tokenStoreCodeV1_0,
  tokenStoreCodeV1_1,
} from '../../../../../contracts/evm/auth-capture-code.js'

/** The scheme's name on the wire. */
export const AUTH_CAPTURE = 'auth-capture'

/**
 * The x402 `auth-capture` escrow stack (base/commerce-payments): two CREATE2 sets, at the
 * addresses `@x402/evm` 2.27.0 signs for. A payment's `extra.authCaptureEscrow` picks one; omitted,
 * it is v1.1. The client's token-authorization nonce commits to the escrow's address and the
 * chain, so a compatible escrow must live exactly there: the embedded chains place parx's own
 * contracts (same ABI, struct and hashes) at these addresses with anvil_setCode.
 * `tokenStore` is the implementation the operators' token stores are clones of (where the
 * reference escrow's constructor creates it: the escrow's first CREATE).
 */
export const AUTH_CAPTURE_V1_1 = {
  version: 'v1.1',
  escrow: '0xf96815976523E00e65Be8f34cA5e64b4f41EB19c',
  eip3009Collector: '0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88',
  permit2Collector: '0xD69831Aed5bfe262067ec4c751f4F830EcdD446e',
  operatorRefundCollector: '0x7a03443724d14798c4AB4622F1DAAcA761Fea486',
  tokenStore: '0xe4be44B1505d29ae640748b4cce530ece6DcD450',
} as const satisfies AuthCaptureDeployment

export const AUTH_CAPTURE_V1_0 = {
  version: 'v1.0',
  escrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
  eip3009Collector: '0x0E3dF9510de65469C4518D7843919c0b8C7A7757',
  permit2Collector: '0x992476B9Ee81d52a5BdA0622C333938D0Af0aB26',
  operatorRefundCollector: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
  tokenStore: '0xEd411C46508C2acf1D387754Df9cc98D0ef80D08',
} as const satisfies AuthCaptureDeployment

export type AuthCaptureDeployment = {
  version: 'v1.0' | 'v1.1'
  escrow: Address
  eip3009Collector: Address
  permit2Collector: Address
  operatorRefundCollector: Address
  tokenStore: Address
}

export const AUTH_CAPTURE_DEPLOYMENTS = [AUTH_CAPTURE_V1_1, AUTH_CAPTURE_V1_0] as const

/**
 * The deployment a payment's `extra.authCaptureEscrow` names (absent: v1.1), or undefined for any
 * other address, which the scheme refuses.
 *
 * @example
 * authCaptureDeployment(undefined)?.version // 'v1.1'
 */
export function authCaptureDeployment(escrow: string | undefined): AuthCaptureDeployment | undefined {
  if (escrow === undefined || escrow === '') return AUTH_CAPTURE_V1_1
  return AUTH_CAPTURE_DEPLOYMENTS.find((d) => d.escrow.toLowerCase() === escrow.toLowerCase())
}

/** `charge` and `capture` take `feeAmount` on v1.1 and `feeBps` on v1.0; everything else is the same. */
export const authCaptureEscrowAbi = { 'v1.0': AuthCaptureEscrowV1_0.abi, 'v1.1': AuthCaptureEscrowV1_1.abi } as const

/** The names `parx chains` and `parx deploy` report each set under, beside the tokens and routers. */
export const authCaptureContractSets = {
  'v1.1': {
    authCaptureEscrow: AUTH_CAPTURE_V1_1.escrow,
    authCaptureErc3009Collector: AUTH_CAPTURE_V1_1.eip3009Collector,
    authCapturePermit2Collector: AUTH_CAPTURE_V1_1.permit2Collector,
    authCaptureOperatorRefundCollector: AUTH_CAPTURE_V1_1.operatorRefundCollector,
  },
  'v1.0': {
    authCaptureEscrowV1_0: AUTH_CAPTURE_V1_0.escrow,
    authCaptureErc3009CollectorV1_0: AUTH_CAPTURE_V1_0.eip3009Collector,
    authCapturePermit2CollectorV1_0: AUTH_CAPTURE_V1_0.permit2Collector,
    authCaptureOperatorRefundCollectorV1_0: AUTH_CAPTURE_V1_0.operatorRefundCollector,
  },
} as const

export const authCaptureContracts = { ...authCaptureContractSets['v1.1'], ...authCaptureContractSets['v1.0'] } as const

/**
 * Runtime code per canonical address, for placing with anvil_setCode (embedded chains and tests):
 * both escrows, their token store implementations and their three collectors.
 */
export const authCaptureRuntimeCode: ReadonlyArray<readonly [Address, Hex]> = [
  [AUTH_CAPTURE_V1_1.escrow, AuthCaptureEscrowV1_1.deployedBytecode],
  [AUTH_CAPTURE_V1_1.tokenStore, tokenStoreCodeV1_1],
  [AUTH_CAPTURE_V1_1.eip3009Collector, erc3009CollectorCodeV1_1],
  [AUTH_CAPTURE_V1_1.permit2Collector, permit2CollectorCodeV1_1],
  [AUTH_CAPTURE_V1_1.operatorRefundCollector, refundCollectorCodeV1_1],
  [AUTH_CAPTURE_V1_0.escrow, AuthCaptureEscrowV1_0.deployedBytecode],
  [AUTH_CAPTURE_V1_0.tokenStore, tokenStoreCodeV1_0],
  [AUTH_CAPTURE_V1_0.eip3009Collector, erc3009CollectorCodeV1_0],
  [AUTH_CAPTURE_V1_0.permit2Collector, permit2CollectorCodeV1_0],
  [AUTH_CAPTURE_V1_0.operatorRefundCollector, refundCollectorCodeV1_0],
]
