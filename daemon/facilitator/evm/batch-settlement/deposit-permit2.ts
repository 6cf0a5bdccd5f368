import {
  type Address,
  encodeAbiParameters,
  erc20Abi,
  getAddress,
  type Hex,
  isAddressEqual,
  parseErc6492Signature,
} from 'viem'
import {
  depositPermit2WitnessTypes,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { PERMIT2_ADDRESS, type Permit2Authorization } from '../../../../src/sdk/x402/evm/permit2.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'
import type { Failure, Resolved } from '../../method.js'
import { sponsoredPermit } from '../eip2612-sponsoring.js'
import type { EvmRuntime } from '../runtime.js'
import { parseAddress, uint } from './parse.js'

/** A deposit's `permit2Authorization` as the official client signs it (spender: the Permit2 deposit collector). */
export type Permit2Deposit = {
  from: Address
  token: Address
  amount: bigint
  spender: Address
  nonce: bigint
  deadline: bigint
  channelId: Hex
  signature: Hex
}

export function parsePermit2Deposit(v: unknown): Permit2Deposit | undefined {
  if (!isRecord(v) || !isRecord(v.permitted) || !isRecord(v.witness)) return undefined
  const from = parseAddress(v.from),
    token = parseAddress(v.permitted.token),
    spender = parseAddress(v.spender)
  const amount = uint(v.permitted.amount),
    nonce = uint(v.nonce),
    deadline = uint(v.deadline)
  const channelId =
    typeof v.witness.channelId === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v.witness.channelId)
      ? (v.witness.channelId.toLowerCase() as Hex)
      : undefined
  const signature =
    typeof v.signature === 'string' && /^0x[0-9a-fA-F]+$/.test(v.signature) ? (v.signature as Hex) : undefined
  if (
    !from ||
    !token ||
    !spender ||
    amount === undefined ||
    nonce === undefined ||
    deadline === undefined ||
    !channelId ||
    !signature
  )
    return undefined
  return { from, token, amount, spender, nonce, deadline, channelId, signature }
}

/** The reference's exact-scheme reasons for a bad EIP-2612 extension, as this scheme names them. */
const eip2612Reasons: Record<string, string> = {
  [reasons.eip2612ExtensionFormat]: reasons.batchEip2612InvalidFormat,
  [reasons.eip2612FromMismatch]: reasons.batchEip2612OwnerMismatch,
  [reasons.eip2612AssetMismatch]: reasons.batchEip2612AssetMismatch,
  [reasons.eip2612SpenderNotPermit2]: reasons.batchEip2612SpenderMismatch,
  [reasons.eip2612DeadlineExpired]: reasons.batchEip2612DeadlineExpired,
  [reasons.permit2612AmountMismatch]: reasons.batchEip2612AmountMismatch,
}

/**
 * Checks a Permit2 deposit as the reference facilitator does, and answers the collector's data
 * (`abi.encode(nonce, deadline, signature, eip2612PermitData)`). The payer's Permit2 allowance
 * comes from an earlier approval or, with the EIP-2612 gas-sponsoring extension, from a permit
 * the collector submits in the same transaction (the payer needs no ETH either way). The
 * signature is judged through the chain, so a smart-wallet payer (ERC-1271) may deposit too.
 */
export async function permit2CollectorData(
  rt: EvmRuntime,
  p: Resolved,
  a: Permit2Deposit,
  payer: Address,
  amount: bigint,
  channelId: Hex,
  now: bigint,
): Promise<Hex | Failure> {
  const fail = (reason: string, message: string): Failure => ({ reason, message, payer })
  if (!isAddressEqual(a.from, payer))
    return fail(
      reasons.batchPermit2InvalidSignature,
      `the Permit2 authorization is from ${a.from}, not the channel's payer ${payer}`,
    )
  if (!isAddressEqual(a.spender, PERMIT2_DEPOSIT_COLLECTOR_ADDRESS))
    return fail(
      reasons.batchPermit2InvalidSpender,
      `the Permit2 spender must be the deposit collector ${PERMIT2_DEPOSIT_COLLECTOR_ADDRESS}, not ${a.spender}`,
    )
  if (!isAddressEqual(a.token, p.requirements.asset as Address))
    return fail(
      reasons.batchTokenMismatch,
      `the Permit2 authorization is for ${a.token}, not the asset ${p.requirements.asset}`,
    )
  if (a.amount !== amount)
    return fail(
      reasons.batchPermit2AmountMismatch,
      `the Permit2 authorization is for ${a.amount}, the deposit ${amount}`,
    )
  if (a.channelId !== channelId.toLowerCase())
    return fail(reasons.batchChannelIdMismatch, `the Permit2 witness names channel ${a.channelId}, not ${channelId}`)
  if (a.deadline < now + 6n)
    return fail(
      reasons.batchPermit2DeadlineExpired,
      `the Permit2 authorization's deadline ${a.deadline} has passed or is about to`,
    )
  const signed = await rt.chain.client
    .verifyTypedData({
      address: payer,
      domain: { name: 'Permit2', chainId: p.spec.chainId!, verifyingContract: PERMIT2_ADDRESS },
      types: depositPermit2WitnessTypes,
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: a.token, amount: a.amount },
        spender: a.spender,
        nonce: a.nonce,
        deadline: a.deadline,
        witness: { channelId: a.channelId },
      },
      signature: a.signature,
    })
    .catch(() => false)
  if (!signed)
    return fail(
      reasons.batchPermit2InvalidSignature,
      'the Permit2 authorization is not signed by the payer for this deposit',
    )

  const permit = sponsoredPermit(p.extensions, { from: payer, token: a.token, amount } as Permit2Authorization, now)
  let permitData: Hex = '0x'
  if (permit && 'reason' in permit)
    return fail(eip2612Reasons[permit.reason] ?? reasons.batchEip2612InvalidFormat, permit.message)
  if (permit) {
    // The collector refuses a permit for another value; the reference checks the same.
    if (permit.value !== amount)
      return fail(
        reasons.batchEip2612AmountMismatch,
        `the EIP-2612 permit allows ${permit.value}, the deposit is ${amount}`,
      )
    permitData = encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint8' }, { type: 'bytes32' }, { type: 'bytes32' }],
      [permit.value, permit.deadline, permit.v, permit.r, permit.s],
    )
  } else {
    const allowance = await rt.chain.client
      .readContract({
        address: getAddress(a.token),
        abi: erc20Abi,
        functionName: 'allowance',
        args: [payer, PERMIT2_ADDRESS],
      })
      .catch(() => 0n)
    if (allowance < amount)
      return fail(
        reasons.batchPermit2AllowanceRequired,
        `the payer allows Permit2 ${allowance}, less than the ${amount} ` +
          `deposit; approve Permit2 or send the eip2612GasSponsoring extension`,
      )
  }
  // A counterfactual wallet's ERC-6492 wrapper is for off-chain checks; Permit2 takes the inner signature.
  const { signature } = parseErc6492Signature(a.signature)
  return encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes' }],
    [a.nonce, a.deadline, signature, permitData],
  )
}
