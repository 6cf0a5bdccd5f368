import type { FlowName } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { pairOf, pickToken, type SwapKind } from '../../src/networks/pairs.js'
import { USDC } from '../../src/networks/registry.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'

export type { SwapKind }

export type SwapPair = { kind: SwapKind; input: EvmToken; output: EvmToken; flow: FlowName }

const flowOf: Record<SwapKind, FlowName> = { par: 'base.swap', entry: 'base.entry', redeem: 'base.redeem' }

export const resolveToken = (chain: EvmChain, symbol: string, field: string): EvmToken =>
  pickToken(chain.tokens, chain.key, symbol, field)

export function resolvePair(chain: EvmChain, inSymbol: string, outSymbol: string): SwapPair {
  const { kind, input, output } = pairOf(chain.tokens, chain.key, inSymbol, outSymbol)
  if (kind === 'redeem' && !chain.contracts[pairKey(input.symbol)]) {
    throw new BaseError(
      'UNSUPPORTED_PAIR',
      `${chain.key} has no ${input.symbol}/${USDC} pool to price a redemption of ${input.symbol}`,
    )
  }
  return { kind, input, output, flow: flowOf[kind] }
}

/** Name of the Uniswap V2 pair of a partner stable against USDC in the chain's contracts. */
export const pairKey = (symbol: string) => `pair:${symbol}/${USDC}`
