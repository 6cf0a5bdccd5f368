import type { FlowName } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { USDC } from '../../src/networks/registry.js'
import type { SolanaChain, SplMint } from '../chains/solana/chain.js'

/** As on Base: the tokens decide the kind, whichever of the two routes the request came to. */
export type SolSwapKind = 'par' | 'entry' | 'redeem'

export type SolPair = { kind: SolSwapKind; input: SplMint; output: SplMint; flow: FlowName }

/** Solana has two switches: par swaps and entry buys are `sol.swap`, redemptions `sol.redeem`. */
const flowOf: Record<SolSwapKind, FlowName> = { par: 'sol.swap', entry: 'sol.swap', redeem: 'sol.redeem' }

export function resolveSolToken(chain: SolanaChain, symbol: string, field: string): SplMint {
  const t = chain.mints[symbol.toUpperCase()]
  if (!t) throw new BaseError('UNKNOWN_TOKEN', `${field} '${symbol}' is not a token of ${chain.key}; use one of ${Object.keys(chain.mints).join(', ')}`)
  return t
}

export function resolveSolPair(chain: SolanaChain, inSymbol: string, outSymbol: string): SolPair {
  const input = resolveSolToken(chain, inSymbol, 'in')
  const output = resolveSolToken(chain, outSymbol, 'out')
  if (input.symbol === output.symbol) {
    throw new BaseError('UNSUPPORTED_PAIR', `in and out are both ${input.symbol}: a swap needs two different tokens`)
  }
  const kind: SolSwapKind = input.symbol === USDC ? 'entry' : output.symbol === USDC ? 'redeem' : 'par'
  return { kind, input, output, flow: flowOf[kind] }
}

/** Refuses a pair whose flow the operator switched off (GET /api/capabilities shows them). */
export function checkFlow(pair: SolPair, flowEnabled: (flow: FlowName) => boolean): void {
  if (flowEnabled(pair.flow)) return
  throw new BaseError('FLOW_DISABLED', `the ${pair.flow} flow (${pair.input.symbol} to ${pair.output.symbol}) is disabled on this service (see GET /api/capabilities)`)
}
