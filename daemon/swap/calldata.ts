import {
  concatHex, decodeAbiParameters, encodeAbiParameters, parseAbiItem, toFunctionSelector,
  type AbiFunction, type Address, type Hex,
} from 'viem'
import type { PublicClient } from 'viem'

/**
 * Calldata for the few functions the swap path calls on every request. viem's encodeFunctionData
 * hashes the function signature on each call; here each selector is hashed once.
 */
export type Fn = { item: AbiFunction; selector: Hex }

export function fn(signature: string): Fn {
  const item = parseAbiItem(signature) as AbiFunction
  return { item, selector: toFunctionSelector(item) }
}

/** A function of a contract's ABI, by name (the first of that name). */
export function fnOf(abi: readonly unknown[], name: string): Fn {
  const item = abi.find((x) => (x as AbiFunction).type === 'function' && (x as AbiFunction).name === name) as AbiFunction
  return { item, selector: toFunctionSelector(item) }
}

export function encodeCall(f: Fn, args: readonly unknown[]): Hex {
  return f.item.inputs.length ? concatHex([f.selector, encodeAbiParameters(f.item.inputs, args)]) : f.selector
}

export type Call = { to: Address; fn: Fn; args?: readonly unknown[] }

const aggregate3 = fn('function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)')

/**
 * Several view calls in one eth_call through Multicall3; every call must succeed. Returns each
 * call's outputs (a single output unwrapped).
 */
export async function multicall(client: PublicClient, multicall3: Address, calls: Call[]): Promise<unknown[]> {
  const data = encodeCall(aggregate3, [calls.map((c) => ({ target: c.to, allowFailure: false, callData: encodeCall(c.fn, c.args ?? []) }))])
  const { data: out } = await client.call({ to: multicall3, data })
  const [results] = decodeAbiParameters(aggregate3.item.outputs, out!) as [readonly { success: boolean; returnData: Hex }[]]
  return results.map((r, i) => {
    const decoded = decodeAbiParameters(calls[i]!.fn.item.outputs, r.returnData)
    return decoded.length === 1 ? decoded[0] : decoded
  })
}
