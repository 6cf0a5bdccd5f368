import type { FlowName } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { USDC } from '../../src/networks/registry.js'
import type { EvmChain, EvmToken } from '../chains/evm/chain.js'

/**
 * par: partner stable to partner stable; entry: USDC to a partner stable; redeem: partner stable to
 * USDC. The kind follows from the tokens, not from the path it was posted to, so every kind settles
 * identically on /api/base/swap and /api/base/redeem.
 */
export type SwapKind = 'par' | 'entry' | 'redeem'

export type SwapPair = { kind: SwapKind; input: EvmToken; output: EvmToken; flow: FlowName }

const flowOf: Record<SwapKind, FlowName> = { par: 'base.swap', entry: 'base.entry', redeem: 'base.redeem' }

export function resolveToken(chain: EvmChain, symbol: string, field: string): EvmToken {
  const t = chain.tokens[symbol.toUpperCase()]
  if (!t) throw new BaseError('UNKNOWN_TOKEN', `${field} '${symbol}' is not a token of ${chain.key}; use one of ${Object.keys(chain.tokens).join(', ')}`)
  return t
}

export function resolvePair(chain: EvmChain, inSymbol: string, outSymbol: string): SwapPair {
  const input = resolveToken(chain, inSymbol, 'in')
  const output = resolveToken(chain, outSymbol, 'out')
  if (input.symbol === output.symbol) {
    throw new BaseError('UNSUPPORTED_PAIR', `in and out are both ${input.symbol}: a swap needs two different tokens`)
  }
  const kind: SwapKind = input.symbol === USDC ? 'entry' : output.symbol === USDC ? 'redeem' : 'par'
  if (kind === 'redeem' && !chain.contracts[pairKey(input.symbol)]) {
    throw new BaseError('UNSUPPORTED_PAIR', `${chain.key} has no ${input.symbol}/${USDC} pool to price a redemption of ${input.symbol}`)
  }
  return { kind, input, output, flow: flowOf[kind] }
}

/** Name of the Uniswap V2 pair of a partner stable against USDC in the chain's contracts. */
export const pairKey = (symbol: string) => `pair:${symbol}/${USDC}`
