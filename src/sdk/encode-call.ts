import {
  type Abi,
  type ContractFunctionName,
  type EncodeFunctionDataParameters,
  encodeFunctionData,
  type Hex,
  prepareEncodeFunctionData,
} from 'viem'

type Prepared = { abi: readonly [unknown]; functionName: Hex }
const preparedByAbi = new WeakMap<object, Map<string, Prepared | null>>()

/**
 * viem's encodeFunctionData, with the function's ABI item and selector looked up once per ABI,
 * name and argument count instead of on every call: finding the item and hashing its signature
 * cost more than the encoding itself, on every verify and settle. A name with two overloads of
 * the same argument count is not cached (the argument types choose between them).
 */
export function encodeCall<
  const abi extends Abi | readonly unknown[],
  functionName extends ContractFunctionName<abi> | undefined = undefined,
>(parameters: EncodeFunctionDataParameters<abi, functionName>): Hex {
  const { abi, functionName, args } = parameters as { abi: Abi; functionName?: string; args?: readonly unknown[] }
  if (!functionName) return encodeFunctionData(parameters as never)
  let byName = preparedByAbi.get(abi)
  if (!byName) preparedByAbi.set(abi, (byName = new Map()))
  const key = `${functionName}/${args?.length ?? 0}`
  let prepared = byName.get(key)
  if (prepared === undefined) {
    const sameArity = abi.filter(
      (i) => i.type === 'function' && i.name === functionName && i.inputs.length === (args?.length ?? 0),
    )
    prepared =
      sameArity.length === 1
        ? (prepareEncodeFunctionData({ abi, functionName, args } as never) as unknown as Prepared)
        : null
    byName.set(key, prepared)
  }
  return prepared ? encodeFunctionData({ ...prepared, args } as never) : encodeFunctionData(parameters as never)
}
