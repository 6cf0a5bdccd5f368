import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddress,
  isHex,
  parseAbi,
  parseErc6492Signature,
  recoverTypedDataAddress,
  size,
} from 'viem'
import * as X402Permit2ProxyLite from '../../../../contracts/evm/artifacts/X402Permit2ProxyLite.js'
import { permit2WitnessTypes } from '../../eip712.js'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import { isRecord } from '../wire.js'
import { type Failure, MIN_VALIDITY_SECONDS } from './authorization.js'
import type { ExecCall } from './executor.js'

/** Permit2's canonical address, the same on every chain (and placed there on the embedded ones). */
export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** The x402 exact-scheme Permit2 proxy: the spender every reference permit2 payment names. */
export const X402_EXACT_PERMIT2_PROXY: Address = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001'

export { permit2WitnessTypes }

/** `payload.permit2Authorization` with every field parsed. */
export type Permit2Authorization = {
  signature: Hex
  from: Address
  token: Address
  amount: bigint
  spender: Address
  nonce: bigint
  deadline: bigint
  to: Address
  validAfter: bigint
}

export const permit2Abi = parseAbi([
  'function nonceBitmap(address owner, uint256 word) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
])

export function permit2TypedData(chainId: number, a: Omit<Permit2Authorization, 'signature' | 'from'>) {
  return {
    domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
    types: permit2WitnessTypes,
    primaryType: 'PermitWitnessTransferFrom' as const,
    message: {
      permitted: { token: a.token, amount: a.amount },
      spender: a.spender,
      nonce: a.nonce,
      deadline: a.deadline,
      witness: { to: a.to, validAfter: a.validAfter },
    },
  }
}

const uint = (v: unknown) =>
  typeof v === 'string' && /^\d{1,78}$/.test(v)
    ? BigInt(v)
    : typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
      ? BigInt(v)
      : undefined
const address = (v: unknown) => (typeof v === 'string' && isAddress(v, { strict: false }) ? getAddress(v) : undefined)

/** Parses `{signature, permit2Authorization}`, or names the first field that is missing or malformed. */
export function parsePermit2(payload: Record<string, unknown>): Permit2Authorization | Failure {
  const bad = (field: string): Failure => ({
    reason: reasons.invalidPayload,
    message: `payload.${field} is missing or malformed`,
  })
  const a = payload.permit2Authorization
  if (typeof payload.signature !== 'string' || !isHex(payload.signature) || payload.signature.length < 130)
    return bad('signature')
  if (!isRecord(a)) return bad('permit2Authorization')
  const permitted = isRecord(a.permitted) ? a.permitted : {}
  const witness = isRecord(a.witness) ? a.witness : {}
  const fields = {
    from: address(a.from),
    token: address(permitted.token),
    amount: uint(permitted.amount),
    spender: address(a.spender),
    nonce: uint(a.nonce),
    deadline: uint(a.deadline),
    to: address(witness.to),
    validAfter: uint(witness.validAfter ?? '0'),
  }
  const path: Record<keyof typeof fields, string> = {
    from: 'from',
    token: 'permitted.token',
    amount: 'permitted.amount',
    spender: 'spender',
    nonce: 'nonce',
    deadline: 'deadline',
    to: 'witness.to',
    validAfter: 'witness.validAfter',
  }
  for (const [k, v] of Object.entries(fields))
    if (v === undefined) return bad(`permit2Authorization.${path[k as keyof typeof fields]}`)
  if (fields.nonce! >= 2n ** 256n || fields.amount! >= 2n ** 256n || fields.deadline! >= 2n ** 256n)
    return bad('permit2Authorization')
  // Smart-wallet signatures may arrive ERC-6492-wrapped; Permit2 verifies the inner one.
  const { signature } = parseErc6492Signature(payload.signature as Hex)
  return { signature, ...(fields as Omit<Permit2Authorization, 'signature'>) }
}

/**
 * The checks that need no chain, in the reference facilitator's order and with its reasons:
 * spender, recipient, deadline, validAfter, exact amount, token, then an ECDSA signature (a
 * contract wallet's is left to Permit2's ERC-1271 call in the simulation). `signature: false`:
 * the caller judges the signature itself (the daemon does, by whether the payer has code).
 */
export async function checkPermit2(
  a: Permit2Authorization,
  r: PaymentRequirements,
  chainId: number,
  now: bigint,
  o: { signature?: boolean } = {},
): Promise<Failure | undefined> {
  if (a.spender !== X402_EXACT_PERMIT2_PROXY) {
    return {
      reason: reasons.permit2InvalidSpender,
      message:
        `the permit names spender ${a.spender}; permit2 payments ` +
        `must name the x402 Permit2 proxy ${X402_EXACT_PERMIT2_PROXY}`,
    }
  }
  if (!isAddress(r.payTo, { strict: false }) || getAddress(r.payTo) !== a.to) {
    return {
      reason: reasons.permit2RecipientMismatch,
      message: `witness.to ${a.to} is not the seller's payTo ${r.payTo}`,
    }
  }
  if (a.deadline < now + MIN_VALIDITY_SECONDS) {
    return {
      reason: reasons.permit2DeadlineExpired,
      message: `deadline ${a.deadline} has passed or is less than ${MIN_VALIDITY_SECONDS} s away (now ${now})`,
    }
  }
  if (a.validAfter > now)
    return {
      reason: reasons.permit2NotYetValid,
      message: `witness.validAfter ${a.validAfter} is in the future (now ${now})`,
    }
  if (a.amount !== BigInt(r.amount))
    return {
      reason: reasons.permit2AmountMismatch,
      message: `permitted.amount ${a.amount} must be exactly ${r.amount}`,
    }
  if (a.token !== getAddress(r.asset))
    return {
      reason: reasons.permit2TokenMismatch,
      message: `permitted.token ${a.token} is not the required asset ${r.asset}`,
    }
  if (o.signature !== false && size(a.signature) === 65) {
    const signer = await recoverTypedDataAddress({ ...permit2TypedData(chainId, a), signature: a.signature }).catch(
      () => undefined,
    )
    if (signer !== a.from)
      return { reason: reasons.permit2InvalidSignature, message: `the Permit2 signature does not recover to ${a.from}` }
  }
  return undefined
}

/** The proxy call that settles a checked payment: anyone may send it, the witness fixes the recipient. */
export function permit2SettleCall(a: Permit2Authorization): ExecCall {
  const data = encodeFunctionData({
    abi: X402Permit2ProxyLite.abi,
    functionName: 'settle',
    args: [
      { permitted: { token: a.token, amount: a.amount }, nonce: a.nonce, deadline: a.deadline },
      a.from,
      { to: a.to, validAfter: a.validAfter },
      a.signature,
    ],
  })
  return { target: X402_EXACT_PERMIT2_PROXY, data }
}

/** Permit2 nonces are per owner, across tokens: one nonce, one payment. */
export function permit2ReplayKey(network: string, a: Permit2Authorization): string {
  return `${network}:${PERMIT2_ADDRESS.toLowerCase()}:${a.from.toLowerCase()}:permit2:${a.nonce}`
}
