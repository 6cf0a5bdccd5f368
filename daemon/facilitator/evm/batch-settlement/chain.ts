import { type Abi, type Address, decodeFunctionResult, encodeFunctionData, erc20Abi, type Hex } from 'viem'
import * as UsdcToken from '../../../../contracts/evm/artifacts/UsdcToken.js'
import * as X402BatchSettlement from '../../../../contracts/evm/artifacts/X402BatchSettlement.js'
import { BaseError } from '../../../../src/errors/base.js'
import { BATCH_SETTLEMENT_ADDRESS } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { ExecCall } from '../../../../src/sdk/x402/evm/executor.js'
import { revertNamer } from '../revert-name.js'
import type { EvmRuntime } from '../runtime.js'

const abi = X402BatchSettlement.abi
const bs = { address: BATCH_SETTLEMENT_ADDRESS, abi } as const

export type ChannelState = { balance: bigint; totalClaimed: bigint; withdrawRequestedAt: number; refundNonce: bigint }

/**
 * The channel's on-chain state in one round trip: the three reads as one simulated executor call,
 * as `exact` reads a payment's state (three parallel eth_calls took twice exact's verify time).
 */
export async function channelState(rt: EvmRuntime, channelId: Hex): Promise<ChannelState> {
  await rt.ready()
  const reads = (['channels', 'pendingWithdrawals', 'refundNonce'] as const).map((functionName) => [
    settlementCall(functionName, [channelId]),
  ])
  const r = await rt.simulate(reads)
  if (!r.ok.every(Boolean))
    throw new BaseError('INTERNAL', `a channel read reverted: ${revertName(r.data.find((_, i) => !r.ok[i]))}`)
  const [balance, totalClaimed] = decodeFunctionResult({
    abi,
    functionName: 'channels',
    data: r.data[0]!,
  }) as readonly [bigint, bigint]
  const [, initiatedAt] = decodeFunctionResult({
    abi,
    functionName: 'pendingWithdrawals',
    data: r.data[1]!,
  }) as readonly [bigint, number]
  const refundNonce = decodeFunctionResult({ abi, functionName: 'refundNonce', data: r.data[2]! }) as bigint
  return { balance, totalClaimed, withdrawRequestedAt: Number(initiatedAt), refundNonce }
}

export const tokenBalance = (rt: EvmRuntime, token: Address, owner: Address) =>
  rt.chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })

export async function receiverDue(rt: EvmRuntime, receiver: Address, token: Address): Promise<bigint> {
  const [claimed, settled] = await rt.chain.client.readContract({
    ...bs,
    functionName: 'receivers',
    args: [receiver, token],
  })
  return claimed - settled
}

/** The snapshot every batch-settlement answer carries (spec: verify `extra`, settle `extra.channelState`). */
export function snapshot(channelId: Hex, s: ChannelState) {
  return {
    channelId,
    balance: s.balance.toString(),
    totalClaimed: s.totalClaimed.toString(),
    withdrawRequestedAt: s.withdrawRequestedAt,
    refundNonce: s.refundNonce.toString(),
  }
}

/** One call of the settlement contract for the executor; `gas` beyond the executor's per-group allowance. */
export function settlementCall(functionName: string, args: readonly unknown[], gas?: bigint): ExecCall {
  return {
    target: BATCH_SETTLEMENT_ADDRESS,
    data: encodeFunctionData({ abi, functionName, args } as never),
    ...(gas ? { gas } : {}),
  }
}

/** A revert from the settlement contract (or the token under it) by its error name. */
export const revertName = revertNamer([...abi, ...UsdcToken.abi] as Abi)
