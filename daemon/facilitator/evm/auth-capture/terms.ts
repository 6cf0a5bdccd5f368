import { type Address, isAddressEqual, zeroAddress } from 'viem'
import {
  type AuthCaptureDeployment,
  authCaptureDeployment,
} from '../../../../src/sdk/x402/evm/auth-capture/contracts.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Failure, Resolved } from '../../method.js'
import { parseAddress } from '../batch-settlement/parse.js'

/** What a payment's requirements commit it to, read and checked once (binding steps 4 and 5). */
export type Terms = {
  deployment: AuthCaptureDeployment
  flow: 'escrow' | 'authorization'
  captureMode: 'sync' | 'deferred'
  method: 'eip3009' | 'permit2'
  name: string
  version: string
  operator: Address
  /** Zero when the route is collect-only. */
  receiverAuthorizer: Address
  captureDeadline: number
  refundDeadline: number
  minFeeBps: number
  maxFeeBps: number
  feeRecipient: Address
}

const UINT48 = 2 ** 48
const int = (v: unknown, max: number) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 && v < max ? v : undefined
const optionalAddress = (v: unknown): Address | false =>
  v === undefined || v === null || v === '' ? zeroAddress : (parseAddress(v) ?? false)

/**
 * The requirements' `extra` as this facilitator settles it: operator type `delegated` only, with
 * the capture authorizer its own executor account (the address the escrow will see as sender);
 * `policy` is reserved by the binding and refused; v1.0's `autoCapture: true` is refused rather
 * than read as `escrow`, since a hold is not the terminal charge the server asked for. A zero
 * `feeRecipient` needs zero fee bounds: otherwise the submitter could name any fee receiver.
 */
export function readTerms(p: Resolved, operatorAccount: Address): Terms | Failure {
  const e = p.requirements.extra
  const bad = (message: string, reason: Failure['reason'] = reasons.acExtra): Failure => ({ reason, message })
  if (e.autoCapture === true)
    return bad(
      'extra.autoCapture (scheme v1.0) is removed; write paymentFlow: "authorization" for a terminal charge',
      reasons.acUnsupportedPaymentFlow,
    )
  const flow = e.paymentFlow ?? 'escrow'
  if (flow !== 'escrow' && flow !== 'authorization')
    return bad(`paymentFlow '${String(flow)}' is neither escrow nor authorization`, reasons.acUnsupportedPaymentFlow)
  const type = e.operatorType ?? 'delegated'
  if (type !== 'delegated')
    return bad(
      `operatorType '${String(type)}' is not settled here; this facilitator is a delegated operator`,
      reasons.acUnsupportedOperatorType,
    )
  const policy = optionalAddress(e.policy)
  if (policy === false) return bad('extra.policy is not an address')
  if (!isAddressEqual(policy, zeroAddress))
    return bad(
      `extra.policy ${policy} is reserved for the future policy ` +
        `operator type, which this facilitator does not implement`,
      reasons.acUnsupportedOperatorType,
    )
  const deployment = authCaptureDeployment(
    typeof e.authCaptureEscrow === 'string' ? e.authCaptureEscrow : e.authCaptureEscrow === undefined ? undefined : '?',
  )
  if (!deployment)
    return bad(`extra.authCaptureEscrow ${String(e.authCaptureEscrow)} is not a canonical auth-capture escrow`)
  const method = e.assetTransferMethod ?? 'eip3009'
  if (method !== 'eip3009' && method !== 'permit2')
    return bad(
      `assetTransferMethod '${String(method)}' is neither eip3009 nor permit2`,
      reasons.acUnsupportedAssetTransferMethod,
    )
  const operator = parseAddress(e.captureAuthorizer)
  const receiverAuthorizer = optionalAddress(e.receiverAuthorizer)
  const feeRecipient = parseAddress(e.feeRecipient)
  const captureDeadline = int(e.captureDeadline, UINT48),
    refundDeadline = int(e.refundDeadline, UINT48)
  const minFeeBps = int(e.minFeeBps, 10_001),
    maxFeeBps = int(e.maxFeeBps, 10_001)
  if (
    typeof e.name !== 'string' ||
    typeof e.version !== 'string' ||
    !operator ||
    receiverAuthorizer === false ||
    !feeRecipient ||
    captureDeadline === undefined ||
    refundDeadline === undefined ||
    minFeeBps === undefined ||
    maxFeeBps === undefined
  ) {
    return bad(
      'extra needs name, version, captureAuthorizer, feeRecipient, ' +
        'captureDeadline, refundDeadline, minFeeBps and maxFeeBps (0-10000)',
    )
  }
  if (!isAddressEqual(operator, operatorAccount))
    return bad(
      `captureAuthorizer ${operator} is not this facilitator's submitter ${operatorAccount} on ${p.spec.caip2}`,
      reasons.acOperatorNotAdmitted,
    )
  if (minFeeBps > maxFeeBps) return bad(`minFeeBps ${minFeeBps} exceeds maxFeeBps ${maxFeeBps}`)
  if (isAddressEqual(feeRecipient, zeroAddress) && maxFeeBps !== 0)
    return bad(
      'a zero feeRecipient needs minFeeBps = maxFeeBps = 0: the submitter could otherwise send the fee anywhere',
    )
  const collectOnly = isAddressEqual(receiverAuthorizer, zeroAddress)
  const mode = e.captureMode
  if (mode !== undefined && flow === 'authorization') return bad('captureMode applies to paymentFlow escrow only')
  if (mode !== undefined && mode !== 'sync' && mode !== 'deferred')
    return bad(`captureMode '${String(mode)}' is neither sync nor deferred`)
  // A collect-only route cannot finalize in the request: a sync capture would be refused and the hold stranded until
  // reclaim.
  if (collectOnly && flow === 'escrow' && mode !== 'deferred')
    return bad('a route without receiverAuthorizer is collect-only: its captureMode must be written out as "deferred"')
  return {
    deployment,
    flow,
    captureMode: mode ?? 'sync',
    method,
    name: e.name,
    version: e.version,
    operator,
    receiverAuthorizer,
    captureDeadline,
    refundDeadline,
    minFeeBps,
    maxFeeBps,
    feeRecipient,
  }
}

/** Whether this payment relays lifecycle operations and charges: a receiver authorizer is named. */
export const relaysLifecycle = (t: Terms) => !isAddressEqual(t.receiverAuthorizer, zeroAddress)
