import type { Address } from 'viem'
import * as Multicall3 from '../../contracts/evm/artifacts/Multicall3.js'
import * as PermitToken from '../../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../../contracts/evm/artifacts/RfqSwap.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'

export type UserState = {
  routerNonce: bigint
  permitNonce: bigint
  balance: bigint
  /** The user's standing allowance to the router: a swap without a valid permit can still settle on it. */
  allowance: bigint
  /** Latest block's timestamp: the router judges deadlines by chain time, not ours. */
  chainTime: bigint
}

/** Everything the checks need to know about one user and one input token, in one eth_call, never cached. */
export async function readUserState(chain: EvmChain, user: Address, token: EvmToken): Promise<UserState> {
  const router = chain.contracts.router!
  const [routerNonce, permitNonce, balance, allowance, chainTime] = await chain.client.multicall({
    allowFailure: false,
    contracts: [
      { address: router, abi: RfqSwap.abi, functionName: 'nonces', args: [user] },
      { address: token.address, abi: PermitToken.abi, functionName: 'nonces', args: [user] },
      { address: token.address, abi: PermitToken.abi, functionName: 'balanceOf', args: [user] },
      { address: token.address, abi: PermitToken.abi, functionName: 'allowance', args: [user, router] },
      { address: multicall3(chain), abi: Multicall3.abi, functionName: 'getCurrentBlockTimestamp' },
    ],
  })
  return { routerNonce, permitNonce, balance, allowance, chainTime }
}

/** GET /api/base/nonces: the router nonce and every token's permit nonce of `owner`, with chain time. */
export async function readNonces(chain: EvmChain, owner: Address) {
  const tokens = Object.values(chain.tokens)
  const results = await chain.client.multicall({
    allowFailure: false,
    contracts: [
      { address: chain.contracts.router!, abi: RfqSwap.abi, functionName: 'nonces', args: [owner] },
      { address: multicall3(chain), abi: Multicall3.abi, functionName: 'getCurrentBlockTimestamp' },
      ...tokens.map((t) => ({ address: t.address, abi: PermitToken.abi, functionName: 'nonces', args: [owner] }) as const),
    ] as never,
  })
  const [routerNonce, chainTime, ...permit] = results as unknown as bigint[]
  return {
    owner,
    router: routerNonce!.toString(),
    permit: Object.fromEntries(tokens.map((t, i) => [t.symbol, permit[i]!.toString()])),
    chainTime: Number(chainTime),
  }
}

/** Multicall3 sits at the same address on every chain the client knows. */
const multicall3 = (chain: EvmChain): Address => chain.contracts.multicall3 ?? chain.client.chain!.contracts!.multicall3!.address
