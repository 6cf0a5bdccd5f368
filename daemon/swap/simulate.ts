import {
  type Address,
  decodeErrorResult,
  type Hex,
  HttpRequestError,
  RawContractError,
  TimeoutError,
  BaseError as ViemError,
} from 'viem'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import { BaseError, type ErrorCode } from '../../src/errors/index.js'
import type { EvmChain } from '../chains/evm/chain.js'

/** Custom errors the router and the tokens it calls can revert with. */
const revertAbi = [...RfqSwap.abi, ...PermitToken.abi].filter((e) => e.type === 'error')

/** Router errors a client can act on get the code of the check that should have caught them. */
const codeOf: Record<string, { code: ErrorCode; todo: string }> = {
  BadSignature: { code: 'INVALID_SIGNATURE', todo: 'orderSig does not verify for order.user: re-sign the order' },
  InsufficientAllowance: {
    code: 'INVALID_SIGNATURE',
    todo:
      'the permit did not verify and no allowance covers ' +
      "inputAmount: re-sign the permit with the input token's domain",
  },
  Expired: { code: 'DEADLINE_EXPIRED', todo: 'the deadline has passed: re-sign with a later one' },
  BadNonce: { code: 'NONCE_MISMATCH', todo: 'order.nonce is stale: re-read nonces(user) and re-sign' },
  InsufficientOutput: {
    code: 'QUOTE_STALE',
    todo: 'the pool pays less than order.minOutputAmount: re-quote and re-sign',
  },
  ERC20InsufficientBalance: { code: 'INSUFFICIENT_BALANCE', todo: 'a balance is short' },
}

export type SimulationFailure = { error: BaseError; errorName?: string }

/**
 * eth_call of the exact transaction the solver would send, at the latest block. Nothing reaches the
 * chain. Resolves to undefined when it would succeed, else to the client error naming the router's
 * reason (never rejects, so it can run while the checks do).
 */
export async function simulate(
  chain: EvmChain,
  from: Address,
  to: Address,
  data: Hex,
  gas: bigint,
): Promise<SimulationFailure | undefined> {
  try {
    await chain.client.call({ account: from, to, data, gas })
    return undefined
  } catch (e) {
    return simulationFailure(e)
  }
}

function simulationFailure(e: unknown): SimulationFailure {
  if (
    e instanceof ViemError &&
    e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError) &&
    !e.walk((x) => x instanceof RawContractError)
  ) {
    return {
      error: new BaseError(
        'CHAIN_UNAVAILABLE',
        `the chain did not answer the simulation (${e.shortMessage}); nothing was sent: retry shortly`,
      ),
    }
  }
  // The node's revert data sits on the innermost cause (as viem's own readContract finds it).
  const root = e instanceof ViemError ? (e.walk() as { data?: Hex | { data?: Hex } }) : undefined
  const data = typeof root?.data === 'object' ? root.data?.data : root?.data
  if (data && data.length >= 10) {
    try {
      const { errorName, args } = decodeErrorResult({ abi: revertAbi, data })
      const reason = `${errorName}(${(args ?? []).map(String).join(', ')})`
      const known = codeOf[errorName]
      const error = known
        ? new BaseError(known.code, `the swap reverts in simulation with ${reason}: ${known.todo}`)
        : new BaseError('SIMULATION_FAILED', `the swap reverts in simulation with ${reason}; nothing was sent`)
      return { error, errorName }
    } catch {
      // not one of ours: fall through with the node's words
    }
  }
  const reason = e instanceof ViemError ? e.shortMessage : String(e)
  return { error: new BaseError('SIMULATION_FAILED', `the swap reverts in simulation: ${reason}; nothing was sent`) }
}
