import { encodeFunctionData, type Hex, isAddressEqual, isHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import * as UsdcToken from '../../../../contracts/evm/artifacts/UsdcToken.js'
import { authorizerTypedData } from '../../../../src/sdk/x402/evm/auth-capture/authorizer.js'
import { nowSeconds } from '../../../../src/sdk/x402/evm/authorization.js'
import type { ExecCall } from '../../../../src/sdk/x402/evm/executor.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { escrowCall, paymentState, send, simulated } from './chain.js'
import { consented } from './consent.js'
import type { Lifecycle } from './lifecycle.js'
import { parseAddress, paymentInfoWire, signature, uint } from './parse.js'

/** The wire field carrying the receiver's funding of a refund. */
export const REFUND_FUNDING_FIELD = 'refundFunding'

/**
 * `refund`: returns captured money to the payer. The escrow's operator-refund collector pulls it
 * from `PaymentInfo.operator`, which is this facilitator's submitter, so a relayed refund would
 * pay the seller's debt with the facilitator's money (the binding's "Refund funding"). parx
 * therefore relays a refund only with the receiver's funding in the same request:
 * `refundFunding` is the receiver's ERC-3009 `ReceiveWithAuthorization` of exactly `amount` to
 * the capture authorizer. One executor group takes it in, approves the collector for it and
 * refunds: all or nothing, so the submitter's balance never moves and a refund the receiver did
 * not fund is refused with `refund_funding_unavailable`.
 */
export async function checkRefund(
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
  if (x.voidAuthorizerSignature !== undefined)
    return fail({ reason: reasons.acVoidAuthorizerSignature, message: 'voidAuthorizerSignature belongs to a capture' })
  const amount = uint(x.amount),
    expectedCapturable = uint(x.expectedCapturableAmount),
    expectedRefundable = uint(x.expectedRefundableAmount)
  const sig = x.authorizerSignature === undefined ? undefined : signature(x.authorizerSignature)
  if (
    amount === undefined ||
    expectedCapturable === undefined ||
    expectedRefundable === undefined ||
    (x.authorizerSignature !== undefined && !sig)
  ) {
    return fail({
      reason: reasons.acPayloadFormat,
      message: 'a refund carries amount, expectedCapturableAmount and expectedRefundableAmount',
    })
  }
  if (BigInt(info.refundExpiry) <= nowSeconds())
    return fail({
      reason: reasons.acRefundDeadlineExpired,
      message: `the refund deadline ${info.refundExpiry} has passed`,
    })
  const collector = t.deployment.operatorRefundCollector
  const typed = authorizerTypedData(p.spec.chainId!, t.operator, {
    type: 'refund',
    paymentInfoHash: hash,
    amount,
    tokenCollector: collector,
    expectedCapturableAmount: expectedCapturable,
    expectedRefundableAmount: expectedRefundable,
  })
  const refused = await consented(rt, p, t, typed as never, sig, authorizer)
  if (refused) return fail(refused)
  const funding = parseFunding(x[REFUND_FUNDING_FIELD])
  if (!funding)
    return fail({
      reason: reasons.acRefundFundingUnavailable,
      message:
        `the capture authorizer refunds only what the receiver funds: send ${REFUND_FUNDING_FIELD} ` +
        `{authorization, signature}, the receiver's ERC-3009 ReceiveWithAuthorization of the amount to ${t.operator}`,
    })
  const a = funding.authorization
  if (!isAddressEqual(a.from, info.receiver) || !isAddressEqual(a.to, t.operator) || a.value !== amount) {
    return fail({
      reason: reasons.acRefundFundingUnavailable,
      message:
        `${REFUND_FUNDING_FIELD} must move exactly ${amount} from the ` +
        `receiver ${info.receiver} to the capture authorizer ${t.operator}`,
    })
  }
  const state = await paymentState(rt, t.deployment, info, p.spec.chainId!)
  if (state.capturableAmount !== expectedCapturable || state.refundableAmount !== expectedRefundable) {
    return fail({
      reason: reasons.acUnexpectedPaymentState,
      message:
        `the escrow holds capturable ${state.capturableAmount} and refundable ` +
        `${state.refundableAmount}, not the ${expectedCapturable} and ${expectedRefundable} signed for`,
    })
  }
  if (amount === 0n || amount > state.refundableAmount)
    return fail({
      reason: reasons.acRefundExceedsCapture,
      message: `a refund returns more than 0 and at most the ${state.refundableAmount} captured and not refunded`,
    })
  const token = info.token
  const group: ExecCall[] = [
    {
      target: token,
      data: encodeFunctionData({
        abi: UsdcToken.abi,
        functionName: 'receiveWithAuthorization',
        args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, funding.signature],
      }),
    },
    {
      target: token,
      data: encodeFunctionData({ abi: UsdcToken.abi, functionName: 'approve', args: [collector, amount] }),
    },
    escrowCall(t.deployment, 'refund', [info, amount, collector, '0x'], 60_000n),
  ]
  await rt.ready()
  if (purpose !== 'settle-verified') {
    const simRefused = await simulated(rt, group, 'funded refund')
    if (simRefused)
      return fail(
        simRefused.reason === reasons.acSimulationFailed
          ? {
              reason: reasons.acRefundFundingUnavailable,
              message: `${simRefused.message} (is ${REFUND_FUNDING_FIELD} signed by the receiver and unused?)`,
            }
          : simRefused,
      )
  }
  const extra = { operation: 'refund', paymentInfoHash: hash, paymentInfo: paymentInfoWire(info) }
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

type Funding = {
  authorization: { from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }
  signature: Hex
}

function parseFunding(v: unknown): Funding | undefined {
  if (!isRecord(v) || !isRecord(v.authorization)) return undefined
  const a = v.authorization
  const from = parseAddress(a.from),
    to = parseAddress(a.to),
    value = uint(a.value),
    validAfter = uint(a.validAfter),
    validBefore = uint(a.validBefore)
  const nonce = typeof a.nonce === 'string' && isHex(a.nonce) && a.nonce.length === 66 ? a.nonce : undefined
  const sig = signature(v.signature)
  if (!from || !to || value === undefined || validAfter === undefined || validBefore === undefined || !nonce || !sig)
    return undefined
  return { authorization: { from, to, value, validAfter, validBefore, nonce }, signature: sig }
}
