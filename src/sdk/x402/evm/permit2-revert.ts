import { decodeErrorResult, type Hex, parseAbi } from 'viem'
import { type Reason, reasons } from '../reasons.js'

/**
 * Errors of the x402 Permit2 proxies (exact and upto), of Permit2's signature transfer, and of OpenZeppelin tokens
 * below them.
 */
const errorsAbi = parseAbi([
  'error InvalidAmount()',
  'error InvalidDestination()',
  'error InvalidOwner()',
  'error PaymentTooEarly()',
  'error Permit2612AmountMismatch()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidAmount(uint256 maxAmount)',
  'error InvalidNonce()',
  'error InvalidSignature()',
  'error InvalidSigner()',
  'error InvalidSignatureLength()',
  'error InvalidContractSignature()',
  'error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)',
  'error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error AmountExceedsPermitted()',
  'error UnauthorizedFacilitator()',
])

/** As the reference facilitator maps them (it folds an expired signature into an invalid one). */
const byError: Record<string, Reason> = {
  InvalidAmount: reasons.permit2InvalidAmount,
  InvalidDestination: reasons.permit2InvalidDestination,
  InvalidOwner: reasons.permit2InvalidOwner,
  PaymentTooEarly: reasons.permit2PaymentTooEarly,
  Permit2612AmountMismatch: reasons.permit2612AmountMismatch,
  SignatureExpired: reasons.permit2InvalidSignature,
  InvalidNonce: reasons.permit2InvalidNonce,
  InvalidSignature: reasons.permit2InvalidSignature,
  InvalidSigner: reasons.permit2InvalidSignature,
  InvalidSignatureLength: reasons.permit2InvalidSignature,
  InvalidContractSignature: reasons.permit2InvalidSignature,
  ERC20InsufficientBalance: reasons.permit2InsufficientBalance,
  ERC20InsufficientAllowance: reasons.permit2AllowanceRequired,
  // the upto proxy's own
  AmountExceedsPermitted: reasons.uptoAmountExceedsPermitted,
  UnauthorizedFacilitator: reasons.uptoUnauthorizedFacilitator,
}

/** The reason and a readable message for a reverted permit2 settlement. */
export function explainPermit2Revert(data: Hex | undefined): { reason: Reason; message: string } {
  if (!data || data === '0x')
    return { reason: reasons.permit2SimulationFailed, message: 'the Permit2 settlement reverted without a reason' }
  try {
    const { errorName, args } = decodeErrorResult({ abi: errorsAbi, data })
    const shown = (args ?? []).map((a) => String(a)).join(', ')
    return {
      reason: byError[errorName] ?? reasons.permit2SimulationFailed,
      message: `the Permit2 settlement reverted with ${errorName}(${shown})`,
    }
  } catch {
    return {
      reason: reasons.permit2SimulationFailed,
      message: `the Permit2 settlement reverted (${data.slice(0, 10)})`,
    }
  }
}
