import type { Address } from 'viem'
import { BaseError } from '../../src/errors/index.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'
import { type Call, fn, multicall } from './calldata.js'

const nonces = fn('function nonces(address) view returns (uint256)')
const balanceOf = fn('function balanceOf(address) view returns (uint256)')
const allowance = fn('function allowance(address, address) view returns (uint256)')
const clock = fn('function getCurrentBlockTimestamp() view returns (uint256)')
const getReserves = fn('function getReserves() view returns (uint112, uint112, uint32)')

export type SwapState = {
  routerNonce: bigint
  permitNonce: bigint
  balance: bigint
  /** The user's standing allowance to the router: a swap without a valid permit can still settle on it. */
  allowance: bigint
  /** Latest block's timestamp: the router judges deadlines by chain time, not ours. */
  chainTime: bigint
  /** The solver's balance and router allowance of the output token. */
  inventory: { balance: bigint; routerAllowance: bigint }
  /** The pair's raw getReserves(), when a pair was asked for. */
  reserves?: readonly [bigint, bigint]
}

export type SwapStateParameters = { user: Address; input: EvmToken; output: EvmToken; solver: Address; pair?: Address }

/**
 * Everything the checks of one swap read, in a single eth_call at the latest block, never cached:
 * the user's nonces, balance and allowance, chain time, the solver's inventory of the output, and
 * for a redemption the pool's reserves.
 */
export async function readSwapState(chain: EvmChain, p: SwapStateParameters): Promise<SwapState> {
  const router = chain.contracts.router!
  const calls: Call[] = [
    { to: router, fn: nonces, args: [p.user] },
    { to: p.input.address, fn: nonces, args: [p.user] },
    { to: p.input.address, fn: balanceOf, args: [p.user] },
    { to: p.input.address, fn: allowance, args: [p.user, router] },
    { to: multicall3(chain), fn: clock },
    { to: p.output.address, fn: balanceOf, args: [p.solver] },
    { to: p.output.address, fn: allowance, args: [p.solver, router] },
    ...(p.pair ? [{ to: p.pair, fn: getReserves }] : []),
  ]
  const r = await multicall(chain.client, multicall3(chain), calls)
  const [routerNonce, permitNonce, balance, allowanceToRouter, chainTime, invBalance, invAllowance] = r as bigint[]
  const reserves = p.pair ? (r[7] as readonly [bigint, bigint, number]) : undefined
  return {
    routerNonce: routerNonce!,
    permitNonce: permitNonce!,
    balance: balance!,
    allowance: allowanceToRouter!,
    chainTime: chainTime!,
    inventory: { balance: invBalance!, routerAllowance: invAllowance! },
    ...(reserves ? { reserves: [reserves[0], reserves[1]] as const } : {}),
  }
}

/** GET /api/base/nonces: the router nonce and every token's permit nonce of `owner`, with chain time. */
export async function readNonces(chain: EvmChain, owner: Address) {
  // A real-network daemon may run without a router (docs/hosting.md "Pointing at real networks"): Base swaps are off
  // then.
  if (!chain.contracts.router)
    throw new BaseError(
      'FLOW_DISABLED',
      `Base swaps are disabled: no router address is configured for ${chain.key} (see GET /api/capabilities)`,
    )
  const tokens = Object.values(chain.tokens)
  const calls: Call[] = [
    { to: chain.contracts.router!, fn: nonces, args: [owner] },
    { to: multicall3(chain), fn: clock },
    ...tokens.map((t) => ({ to: t.address, fn: nonces, args: [owner] })),
  ]
  const [routerNonce, chainTime, ...permit] = (await multicall(chain.client, multicall3(chain), calls)) as bigint[]
  return {
    owner,
    router: routerNonce!.toString(),
    permit: Object.fromEntries(tokens.map((t, i) => [t.symbol, permit[i]!.toString()])),
    chainTime: Number(chainTime),
  }
}

/** Multicall3 sits at the same address on every chain the client knows. */
const multicall3 = (chain: EvmChain): Address =>
  chain.contracts.multicall3 ?? chain.client.chain!.contracts!.multicall3!.address
