import {
  type Address,
  concat,
  decodeFunctionResult,
  getContractAddress,
  type Hex,
  isAddressEqual,
  type Log,
  parseEventLogs,
  zeroHash,
} from 'viem'
import * as X402BatchExecutor from '../../../../contracts/evm/artifacts/X402BatchExecutor.js'
import { encodeCall } from '../../encode-call.js'

/**
 * One call of a payment group: the executor runs it from the facilitator's own address. `gas`:
 * what the call needs beyond a group's GROUP_GAS (e.g. deploying a payer's wallet); not encoded.
 */
export type ExecCall = { target: Address; data: Hex; gas?: bigint }
/** A payment's calls, all or nothing (e.g. permit then transferFrom). */
export type Group = ExecCall[]

/** The CREATE2 factory found at this address on anvil and most public EVM chains. */
export const CREATE2_FACTORY: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c'
const SALT = zeroHash

/** Where the executor lives on every chain: CREATE2 from the public factory, so no per-chain config. */
export const EXECUTOR_ADDRESS: Address = getContractAddress({
  opcode: 'CREATE2',
  from: CREATE2_FACTORY,
  salt: SALT,
  bytecode: X402BatchExecutor.bytecode,
})

/** Calldata for the factory that deploys the executor at EXECUTOR_ADDRESS. */
export const EXECUTOR_DEPLOY_DATA: Hex = concat([SALT, X402BatchExecutor.bytecode])

/** An account's code once it delegates to `target` under EIP-7702. */
export const delegationCode = (target: Address): Hex => `0xef0100${target.slice(2).toLowerCase()}`

export function isDelegatedTo(code: Hex | undefined, target: Address): boolean {
  return (code ?? '0x').toLowerCase() === delegationCode(target)
}

export function encodeExecute(groups: Group[]): Hex {
  return encodeCall({ abi: X402BatchExecutor.abi, functionName: 'execute', args: [groups] })
}

/** Per group: whether it succeeded and its last return data (or its revert data). */
export function decodeExecute(ret: Hex): { ok: readonly boolean[]; data: readonly Hex[] } {
  const [ok, data] = decodeFunctionResult({ abi: X402BatchExecutor.abi, functionName: 'execute', data: ret })
  return { ok, data }
}

/** Revert data of each failed group of a mined batch, by group index, from the executor's events. */
export function failedGroups(logs: readonly Log[], account: Address): Map<number, Hex> {
  const own = logs.filter((l) => isAddressEqual(l.address, account))
  const events = parseEventLogs({ abi: X402BatchExecutor.abi, eventName: 'GroupFailed', logs: own })
  return new Map(events.map((e) => [Number(e.args.index), e.args.reason]))
}

/** Gas one payment group may use; generous, since only what is used is paid. */
export const GROUP_GAS = 160_000n
export const BATCH_BASE_GAS = 60_000n

/** The gas one group may use: GROUP_GAS and what its calls declare beyond it. */
export const groupGas = (g: Group): bigint => g.reduce((sum, c) => sum + (c.gas ?? 0n), GROUP_GAS)

/** The gas limit of a batch: the base and each group's. */
export function batchGas(groups: Group[]): bigint {
  return groups.reduce((sum, g) => sum + groupGas(g), BATCH_BASE_GAS)
}
