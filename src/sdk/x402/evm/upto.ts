import { type Address, encodeFunctionData, getAddress, type Hex, isAddress, isAddressEqual, size } from 'viem'
import * as X402UptoPermit2ProxyLite from '../../../../contracts/evm/artifacts/X402UptoPermit2ProxyLite.js'
import { uptoPermit2WitnessTypes } from '../../eip712.js'
import { reasons } from '../reasons.js'
import { type PaymentRequirements, UPTO } from '../types.js'
import { isRecord } from '../wire.js'
import { type Failure, MIN_VALIDITY_SECONDS } from './authorization.js'
import type { ExecCall } from './executor.js'
import { PERMIT2_ADDRESS, type Permit2Authorization, parsePermit2 } from './permit2.js'

/** The x402 `upto` scheme's Permit2 proxy: the spender every reference upto payment names. */
export const X402_UPTO_PERMIT2_PROXY: Address = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002'

export { UPTO, uptoPermit2WitnessTypes }

/** `payload.permit2Authorization` of an upto payment: `permitted.amount` is the most it may move. */
export type UptoAuthorization = Permit2Authorization & { facilitator: Address }

/** Parses `{signature, permit2Authorization}` with `witness.facilitator`, or names the first bad field. */
export function parseUpto(payload: Record<string, unknown>): UptoAuthorization | Failure {
  const a = parsePermit2(payload)
  if ('reason' in a) return a
  const auth = payload.permit2Authorization as Record<string, unknown>
  const facilitator = isRecord(auth.witness) ? auth.witness.facilitator : undefined
  if (typeof facilitator !== 'string' || !isAddress(facilitator, { strict: false })) {
    return {
      reason: reasons.invalidPayload,
      message: 'payload.permit2Authorization.witness.facilitator is missing or malformed',
    }
  }
  return { ...a, facilitator: getAddress(facilitator) }
}

export function uptoTypedData(chainId: number, a: Omit<UptoAuthorization, 'signature' | 'from'>) {
  return {
    domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
    types: uptoPermit2WitnessTypes,
    primaryType: 'PermitWitnessTransferFrom' as const,
    message: {
      permitted: { token: a.token, amount: a.amount },
      spender: a.spender,
      nonce: a.nonce,
      deadline: a.deadline,
      witness: { to: a.to, facilitator: a.facilitator, validAfter: a.validAfter },
    },
  }
}

/**
 * The checks that need no chain, in the reference facilitator's order and with its reasons:
 * spender, recipient, the facilitator the witness names (only it may settle), deadline,
 * validAfter, the maximum (exactly the requirements' `amount` at verify), token. The signature
 * is judged by the caller, which can see whether the payer has code.
 */
export function checkUpto(
  a: UptoAuthorization,
  r: PaymentRequirements,
  o: { facilitator: Address; now: bigint },
): Failure | undefined {
  if (a.spender !== X402_UPTO_PERMIT2_PROXY) {
    return {
      reason: reasons.permit2InvalidSpender,
      message:
        `the permit names spender ${a.spender}; upto payments must ` +
        `name the x402 upto Permit2 proxy ${X402_UPTO_PERMIT2_PROXY}`,
    }
  }
  if (!isAddress(r.payTo, { strict: false }) || getAddress(r.payTo) !== a.to) {
    return {
      reason: reasons.permit2RecipientMismatch,
      message: `witness.to ${a.to} is not the seller's payTo ${r.payTo}`,
    }
  }
  if (!isAddressEqual(a.facilitator, o.facilitator)) {
    return {
      reason: reasons.uptoFacilitatorMismatch,
      message:
        `witness.facilitator ${a.facilitator} is not this facilitator ` +
        `(${o.facilitator}); only the named facilitator can settle`,
    }
  }
  if (a.deadline < o.now + MIN_VALIDITY_SECONDS) {
    return {
      reason: reasons.permit2DeadlineExpired,
      message: `deadline ${a.deadline} has passed or is less than ${MIN_VALIDITY_SECONDS} s away (now ${o.now})`,
    }
  }
  if (a.validAfter > o.now)
    return {
      reason: reasons.permit2NotYetValid,
      message: `witness.validAfter ${a.validAfter} is in the future (now ${o.now})`,
    }
  if (a.amount !== BigInt(r.amount))
    return {
      reason: reasons.permit2AmountMismatch,
      message: `permitted.amount ${a.amount} (the maximum) must be exactly the requirements' amount ${r.amount}`,
    }
  if (a.token !== getAddress(r.asset))
    return {
      reason: reasons.permit2TokenMismatch,
      message: `permitted.token ${a.token} is not the required asset ${r.asset}`,
    }
  if (size(a.signature) < 64)
    return { reason: reasons.permit2InvalidSignature, message: 'the Permit2 signature is too short' }
  return undefined
}

const args = (a: UptoAuthorization, amount: bigint) =>
  [
    { permitted: { token: a.token, amount: a.amount }, nonce: a.nonce, deadline: a.deadline },
    amount,
    a.from,
    { to: a.to, facilitator: a.facilitator, validAfter: a.validAfter },
    a.signature,
  ] as const

/** The proxy call moving `amount` (at most the signed maximum); only the witness's facilitator may send it. */
export function uptoSettleCall(a: UptoAuthorization, amount: bigint): ExecCall {
  return {
    target: X402_UPTO_PERMIT2_PROXY,
    data: encodeFunctionData({ abi: X402UptoPermit2ProxyLite.abi, functionName: 'settle', args: args(a, amount) }),
  }
}

/** As `uptoSettleCall`, after the payer's EIP-2612 permit for Permit2 (the eip2612GasSponsoring extension). */
export function uptoSettleWithPermitCall(
  a: UptoAuthorization,
  amount: bigint,
  p: { value: bigint; deadline: bigint; v: number; r: Hex; s: Hex },
): ExecCall {
  const data = encodeFunctionData({
    abi: X402UptoPermit2ProxyLite.abi,
    functionName: 'settleWithPermit',
    args: [{ value: p.value, deadline: p.deadline, r: p.r, s: p.s, v: p.v }, ...args(a, amount)],
  })
  return { target: X402_UPTO_PERMIT2_PROXY, data }
}
