import type { PublicClient } from 'viem'
import {
  type AbiFunction,
  type Address,
  concatHex,
  decodeAbiParameters,
  encodeAbiParameters,
  type Hex,
  parseAbiItem,
  toFunctionSelector,
} from 'viem'

/**
 * The view functions the swap path reads on every request, by their human-readable signatures,
 * each selector hashed once (viem's encodeFunctionData hashes it on every call; typed ABIs use
 * src/sdk/encode-call.ts instead).
 */
export type Fn = { item: AbiFunction; selector: Hex }

export function fn(signature: string): Fn {
  const item = parseAbiItem(signature) as AbiFunction
  return { item, selector: toFunctionSelector(item) }
}

function encodeFn(f: Fn, args: readonly unknown[]): Hex {
  return f.item.inputs.length ? concatHex([f.selector, encodeAbiParameters(f.item.inputs, args)]) : f.selector
}

export type Call = { to: Address; fn: Fn; args?: readonly unknown[] }

/** A call's outputs, a single output unwrapped. */
function decodeOutputs(f: Fn, data: Hex): unknown {
  const decoded = decodeAbiParameters(f.item.outputs, data)
  return decoded.length === 1 ? decoded[0] : decoded
}

/** One view call (eth_call), its outputs decoded as `multicall` decodes each. */
export async function viewCall(client: PublicClient, call: Call): Promise<unknown> {
  const { data } = await client.call({ to: call.to, data: encodeFn(call.fn, call.args ?? []) })
  return decodeOutputs(call.fn, data ?? '0x')
}

const aggregate3 = fn(
  'function aggregate3((address target, bool allowFailure, bytes callData)[] ' +
    'calls) payable returns ((bool success, bytes returnData)[] returnData)',
)

/**
 * Several view calls in one eth_call through Multicall3; every call must succeed. Returns each
 * call's outputs (a single output unwrapped).
 */
export async function multicall(client: PublicClient, multicall3: Address, calls: Call[]): Promise<unknown[]> {
  const data = encodeFn(aggregate3, [
    calls.map((c) => ({ target: c.to, allowFailure: false, callData: encodeFn(c.fn, c.args ?? []) })),
  ])
  const { data: out } = await client.call({ to: multicall3, data })
  const [results] = decodeAbiParameters(aggregate3.item.outputs, out!) as [
    readonly { success: boolean; returnData: Hex }[],
  ]
  return results.map((r, i) => decodeOutputs(calls[i]!.fn, r.returnData))
}
