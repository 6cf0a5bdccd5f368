import { type Abi, encodeFunctionData } from 'viem'
import * as UsdcToken from '../../../../contracts/evm/artifacts/UsdcToken.js'
import {
  type AuthCaptureDeployment,
  authCaptureEscrowAbi,
} from '../../../../src/sdk/x402/evm/auth-capture/contracts.js'
import { type PaymentInfo, paymentInfoHash } from '../../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import type { ExecCall, Group } from '../../../../src/sdk/x402/evm/executor.js'
import { type Reason, reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Executed, Failure } from '../../method.js'
import { executeGroup } from '../execute.js'
import { revertNamer } from '../revert-name.js'
import type { EvmRuntime } from '../runtime.js'

export type PaymentState = { hasCollectedPayment: boolean; capturableAmount: bigint; refundableAmount: bigint }

/** One call of the deployment's escrow for the executor; `gas` beyond the group's allowance. */
export function escrowCall(
  d: AuthCaptureDeployment,
  functionName: string,
  args: readonly unknown[],
  gas?: bigint,
): ExecCall {
  return {
    target: d.escrow,
    data: encodeFunctionData({ abi: authCaptureEscrowAbi[d.version], functionName, args } as never),
    ...(gas ? { gas } : {}),
  }
}

/** The escrow's `paymentState` for a payment, read as the executor would see it. */
export async function paymentState(
  rt: EvmRuntime,
  d: AuthCaptureDeployment,
  info: PaymentInfo,
  chainId: number,
): Promise<PaymentState> {
  const abi = authCaptureEscrowAbi[d.version]
  const hash = paymentInfoHash(info, chainId, d.escrow)
  const data = (await rt.chain.client.readContract({
    address: d.escrow,
    abi,
    functionName: 'paymentState',
    args: [hash],
  } as never)) as readonly [boolean, bigint, bigint]
  return { hasCollectedPayment: data[0], capturableAmount: data[1], refundableAmount: data[2] }
}

/** The binding's typed simulation reverts: an escrow error by name, its stable reason. */
const byError: Record<string, Reason> = {
  AfterPreApprovalExpiry: reasons.acAuthorizationExpired,
  InvalidExpiries: reasons.acDeadlineOrdering,
  ExceedsMaxAmount: reasons.acAmountMismatch,
  ZeroAmount: reasons.acAmountMismatch,
  PaymentAlreadyCollected: reasons.acPaymentAlreadyCollected,
  InvalidSender: reasons.acOperatorMismatch,
  FeeBpsOutOfRange: reasons.acFeeOutOfRange,
  FeeAmountOutOfRange: reasons.acFeeOutOfRange,
  InvalidFeeReceiver: reasons.acFeeReceiver,
  ZeroFeeReceiver: reasons.acFeeReceiver,
  AfterAuthorizationExpiry: reasons.acCaptureDeadlineExpired,
  InsufficientAuthorization: reasons.acInsufficientAuthorization,
  ZeroAuthorization: reasons.acZeroAuthorization,
  AfterRefundExpiry: reasons.acRefundDeadlineExpired,
  RefundExceedsCapture: reasons.acRefundExceedsCapture,
}

export const revertName = revertNamer([
  ...authCaptureEscrowAbi['v1.1'],
  ...authCaptureEscrowAbi['v1.0'],
  ...UsdcToken.abi,
] as Abi)

/** A simulated group's refusal as the binding names it, or undefined when it would go through. */
export async function simulated(rt: EvmRuntime, group: Group, what: string): Promise<Failure | undefined> {
  const r = await rt.simulate([group])
  if (r.ok[0]) return undefined
  const name = revertName(r.data[0])
  return { reason: byError[name] ?? reasons.acSimulationFailed, message: `the ${what} would revert: ${name}` }
}

/**
 * Sends a checked group through the executor (batched with other payments); a mined revert is `transaction_reverted`.
 */
export function send(rt: EvmRuntime, group: Group): Promise<Executed> {
  return executeGroup(
    rt,
    group,
    (revert) => ({ reason: reasons.acTransactionReverted, message: `the transaction reverted: ${revertName(revert)}` }),
    reasons.acSimulationFailed,
  )
}
