import type { PrivateKeyAccount } from 'viem/accounts'
import { authorizerTypedData } from '../../../../src/sdk/x402/evm/auth-capture/authorizer.js'
import { nowSeconds } from '../../../../src/sdk/x402/evm/authorization.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { escrowCall, paymentState, send, simulated } from './chain.js'
import { MARGIN_SECONDS } from './collect.js'
import { consented } from './consent.js'
import type { Lifecycle } from './lifecycle.js'
import { parseAddress, paymentInfoWire, signature, uint } from './parse.js'

/**
 * `capture`: moves `amount` of the hold to the receiver (less the fee), refused once the capture
 * deadline is within the margin; the authorizer's signature binds the balances it expects, which
 * the escrow's state must show now (single-use). With `voidAuthorizerSignature` the rest of the
 * hold is voided in the same executor group, so the partial close-out is one transaction: both
 * legs or neither.
 */
export async function checkCapture(
  rt: EvmRuntime,
  p: Resolved,
  l: Lifecycle,
  purpose: Purpose,
  authorizer: PrivateKeyAccount | undefined,
): Promise<Checked> {
  const { t, info, hash } = l
  const payer = info.payer
  const fail = (f: Failure): Checked => ({ ok: false, payer, ...f })
  const x = p.payload
  const amount = uint(x.amount),
    expectedCapturable = uint(x.expectedCapturableAmount),
    expectedRefundable = uint(x.expectedRefundableAmount)
  const feeField = t.deployment.version === 'v1.0' ? 'feeBps' : 'feeAmount'
  const wrongFee = t.deployment.version === 'v1.0' ? 'feeAmount' : 'feeBps'
  const fee = x[feeField] === undefined ? undefined : uint(x[feeField])
  const feeReceiver = x.feeReceiver === undefined ? t.feeRecipient : parseAddress(x.feeReceiver)
  const sig = x.authorizerSignature === undefined ? undefined : signature(x.authorizerSignature)
  const voidSig = x.voidAuthorizerSignature === undefined ? undefined : signature(x.voidAuthorizerSignature)
  if (
    amount === undefined ||
    expectedCapturable === undefined ||
    expectedRefundable === undefined ||
    (x[feeField] !== undefined && fee === undefined) ||
    x[wrongFee] !== undefined ||
    !feeReceiver ||
    (x.authorizerSignature !== undefined && !sig) ||
    (x.voidAuthorizerSignature !== undefined && !voidSig)
  ) {
    return fail({
      reason: reasons.acPayloadFormat,
      message:
        `a capture carries amount, ${feeField}, feeReceiver, ` +
        `expectedCapturableAmount and expectedRefundableAmount`,
    })
  }
  const submittedFee =
    fee ?? (t.deployment.version === 'v1.0' ? BigInt(t.minFeeBps) : (amount * BigInt(t.minFeeBps)) / 10_000n)
  if (BigInt(info.authorizationExpiry) <= nowSeconds() + MARGIN_SECONDS)
    return fail({
      reason: reasons.acCaptureDeadlineExpired,
      message: `the capture deadline ${info.authorizationExpiry} has passed (or is within ${MARGIN_SECONDS} s)`,
    })
  const chainId = p.spec.chainId!
  const typed = authorizerTypedData(chainId, t.operator, {
    type: 'capture',
    version: t.deployment.version,
    paymentInfoHash: hash,
    amount,
    fee: submittedFee,
    feeReceiver,
    expectedCapturableAmount: expectedCapturable,
    expectedRefundableAmount: expectedRefundable,
  })
  const refused = await consented(rt, p, t, typed as never, sig, authorizer)
  if (refused) return fail(refused)
  if (voidSig || (x.voidAuthorizerSignature === undefined && x.closeOut === true)) {
    const voidRefused = await consented(
      rt,
      p,
      t,
      authorizerTypedData(chainId, t.operator, { type: 'void', paymentInfoHash: hash }) as never,
      voidSig,
      authorizer,
      reasons.acVoidAuthorizerSignature,
    )
    if (voidRefused) return fail(voidRefused)
  }
  const closeOut = voidSig !== undefined || x.closeOut === true
  const state = await paymentState(rt, t.deployment, info, chainId)
  if (state.capturableAmount !== expectedCapturable || state.refundableAmount !== expectedRefundable) {
    return fail({
      reason: reasons.acUnexpectedPaymentState,
      message:
        `the escrow holds capturable ${state.capturableAmount} and refundable ` +
        `${state.refundableAmount}, not the ${expectedCapturable} and ${expectedRefundable} signed for`,
    })
  }
  if (amount === 0n || amount > state.capturableAmount)
    return fail({
      reason: reasons.acAmountMismatch,
      message: `a capture moves more than 0 and at most the ${state.capturableAmount} held`,
    })
  if (closeOut && amount === state.capturableAmount)
    return fail({
      reason: reasons.acVoidRemainderFullCapture,
      message: 'a full capture leaves nothing to void: omit voidAuthorizerSignature',
    })
  const feeArg = t.deployment.version === 'v1.0' ? Number(submittedFee) : submittedFee
  const group = [escrowCall(t.deployment, 'capture', [info, amount, feeArg, feeReceiver], 40_000n)]
  if (closeOut) group.push(escrowCall(t.deployment, 'void', [info], 20_000n))
  await rt.ready()
  if (purpose !== 'settle-verified') {
    const simRefused = await simulated(rt, group, closeOut ? 'capture and void' : 'capture')
    if (simRefused) return fail(simRefused)
  }
  const voided = closeOut ? state.capturableAmount - amount : 0n
  const extra = {
    operation: 'capture',
    paymentInfoHash: hash,
    paymentInfo: paymentInfoWire(info),
    voided: voided.toString(),
  }
  return {
    ok: true,
    payer,
    extra,
    async execute() {
      const out = await send(rt, group)
      return out.ok ? { ...out, answer: { amount: amount.toString(), extra } } : out
    },
  }
}

/** What a capture settle records in the ledger: the amount it captures. */
export const captureAmount = (p: Resolved) => uint(p.payload.amount)?.toString() ?? '0'
