import { encodeFunctionData, getAddress, type Hex, isAddress, parseSignature } from 'viem'
import * as X402Permit2ProxyLite from '../../../contracts/evm/artifacts/X402Permit2ProxyLite.js'
import {
  PERMIT2_ADDRESS,
  type Permit2Authorization,
  X402_EXACT_PERMIT2_PROXY,
} from '../../../src/sdk/x402/evm/permit2.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import type { Failure } from '../method.js'

/** The reference's extension key, advertised in /supported `extensions`. */
export const EIP2612_GAS_SPONSORING = 'eip2612GasSponsoring'

/** Seconds a sponsored permit must still be valid for, as the reference requires. */
const DEADLINE_MARGIN = 6n

/** An EIP-2612 permit giving Permit2 its allowance, signed by the payer, submitted by us. */
export type SponsoredPermit = { value: bigint; deadline: bigint; v: number; r: Hex; s: Hex }

/**
 * The reference's EIP-2612 gas-sponsoring extension for permit2 (`@x402/extensions`): a payer that
 * never approved Permit2 (an approval costs gas it may not have) signs an EIP-2612 permit for
 * Permit2 and sends it in `paymentPayload.extensions.eip2612GasSponsoring.info`. The facilitator
 * then settles with the proxy's `settleWithPermit`, which submits the permit first, in the same
 * transaction and at our expense. Checked as the reference checks it: the format, `from` is the
 * payer, `asset` the paid token, `spender` Permit2, the deadline not about to pass, and the value
 * covering the payment. Undefined when the payment carries no such extension.
 */
export function sponsoredPermit(
  extensions: Record<string, unknown> | undefined,
  a: Permit2Authorization,
  now: bigint,
): SponsoredPermit | Failure | undefined {
  const ext = extensions?.[EIP2612_GAS_SPONSORING] as { info?: Record<string, unknown> } | undefined
  const info = ext?.info
  // The server's declaration echoed without a client signature is no permit.
  if (!info || info.signature === undefined) return undefined
  const str = (k: string, re: RegExp) => typeof info[k] === 'string' && re.test(info[k] as string)
  const address = /^0x[0-9a-fA-F]{40}$/
  const digits = /^\d+$/
  if (
    !str('from', address) ||
    !str('asset', address) ||
    !str('spender', address) ||
    !str('amount', digits) ||
    !str('nonce', digits) ||
    !str('deadline', digits) ||
    !str('signature', /^0x[0-9a-fA-F]{130}$/) ||
    !str('version', /^\d+(\.\d+)*$/)
  ) {
    return {
      reason: reasons.eip2612ExtensionFormat,
      message:
        `${EIP2612_GAS_SPONSORING}.info needs from, asset, spender, ` +
        `amount, nonce, deadline, a 65-byte signature and version`,
      payer: a.from,
    }
  }
  const from = getAddress(info.from as string)
  if (from !== getAddress(a.from))
    return {
      reason: reasons.eip2612FromMismatch,
      message: `the EIP-2612 permit is from ${from}, the payment from ${a.from}`,
      payer: a.from,
    }
  if (!isAddress(a.token) || getAddress(info.asset as string) !== getAddress(a.token)) {
    return {
      reason: reasons.eip2612AssetMismatch,
      message: `the EIP-2612 permit is for ${info.asset}, the payment in ${a.token}`,
      payer: a.from,
    }
  }
  if (getAddress(info.spender as string) !== getAddress(PERMIT2_ADDRESS)) {
    return {
      reason: reasons.eip2612SpenderNotPermit2,
      message: `the EIP-2612 permit's spender must be Permit2 (${PERMIT2_ADDRESS}), not ${info.spender}`,
      payer: a.from,
    }
  }
  const deadline = BigInt(info.deadline as string)
  if (deadline < now + DEADLINE_MARGIN)
    return {
      reason: reasons.eip2612DeadlineExpired,
      message: `the EIP-2612 permit's deadline ${deadline} has passed or is about to`,
      payer: a.from,
    }
  const value = BigInt(info.amount as string)
  if (value < a.amount)
    return {
      reason: reasons.permit2612AmountMismatch,
      message: `the EIP-2612 permit allows ${value}, less than the payment's ${a.amount}`,
      payer: a.from,
    }
  const { v, r, s, yParity } = parseSignature(info.signature as Hex)
  return { value, deadline, v: Number(v ?? BigInt(yParity + 27)), r, s }
}

/** The proxy's `settleWithPermit`: the EIP-2612 permit for Permit2, then the Permit2 transfer. */
export function permit2SettleWithPermitCall(a: Permit2Authorization, p: SponsoredPermit): { target: Hex; data: Hex } {
  const data = encodeFunctionData({
    abi: X402Permit2ProxyLite.abi,
    functionName: 'settleWithPermit',
    args: [
      { value: p.value, deadline: p.deadline, r: p.r, s: p.s, v: p.v },
      { permitted: { token: a.token, amount: a.amount }, nonce: a.nonce, deadline: a.deadline },
      a.from,
      { to: a.to, validAfter: a.validAfter },
      a.signature,
    ],
  })
  return { target: X402_EXACT_PERMIT2_PROXY, data }
}
