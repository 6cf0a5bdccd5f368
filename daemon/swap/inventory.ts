import { type Address, erc20Abi, formatUnits } from 'viem'
import type { EvmChain } from '../chains/evm/chain.js'
import type { SwapDeps } from './deps.js'

export type Inventory = Record<string, { balance: bigint; routerAllowance: bigint }>

/** The solver's balance and router allowance of each token, in one multicall. */
export async function readInventory(chain: EvmChain, solver: Address): Promise<Inventory> {
  const router = chain.contracts.router
  const tokens = Object.values(chain.tokens)
  const calls = tokens.flatMap((t) => [
    { address: t.address, abi: erc20Abi, functionName: 'balanceOf', args: [solver] } as const,
    { address: t.address, abi: erc20Abi, functionName: 'allowance', args: [solver, router ?? solver] } as const,
  ])
  const results = await chain.client.multicall({ contracts: calls, allowFailure: false })
  const out: Inventory = {}
  tokens.forEach((t, i) => {
    out[t.symbol] = { balance: results[2 * i] as bigint, routerAllowance: router ? (results[2 * i + 1] as bigint) : 0n }
  })
  return out
}

/** The solver's inventory on Base, shared by concurrent requests for a moment (relays invalidate it). */
export const solverInventory = (s: SwapDeps): Promise<Inventory> =>
  s.reads.get(`inventory:${s.base.key}`, () => readInventory(s.base, s.solver))

/** Human number for display fields; exact values travel as decimal strings beside it. */
export const ui = (raw: bigint, decimals: number) => Number(formatUnits(raw, decimals))
