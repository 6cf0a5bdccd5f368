import type { FlowName } from '../../src/config/schema.js'
import { BaseError } from '../../src/errors/index.js'
import { pairOf, pickToken, type SwapKind } from '../../src/networks/pairs.js'
import type { SolanaChain, SplMint } from '../chains/solana/chain.js'

/** As on Base: the tokens decide the kind, whichever of the two routes the request came to. */
export type SolSwapKind = SwapKind

export type SolPair = { kind: SolSwapKind; input: SplMint; output: SplMint; flow: FlowName }

/** Solana has two switches: par swaps and entry buys are `sol.swap`, redemptions `sol.redeem`. */
const flowOf: Record<SolSwapKind, FlowName> = { par: 'sol.swap', entry: 'sol.swap', redeem: 'sol.redeem' }

export const resolveSolToken = (chain: SolanaChain, symbol: string, field: string): SplMint =>
  pickToken(chain.mints, chain.key, symbol, field)

export function resolveSolPair(chain: SolanaChain, inSymbol: string, outSymbol: string): SolPair {
  const { kind, input, output } = pairOf(chain.mints, chain.key, inSymbol, outSymbol)
  return { kind, input, output, flow: flowOf[kind] }
}

/** Refuses a pair whose flow the operator switched off (GET /api/capabilities shows them). */
export function checkFlow(pair: SolPair, flowEnabled: (flow: FlowName) => boolean): void {
  if (flowEnabled(pair.flow)) return
  throw new BaseError(
    'FLOW_DISABLED',
    `the ${pair.flow} flow (${pair.input.symbol} to ${pair.output.symbol}) ` +
      `is disabled on this service (see GET /api/capabilities)`,
  )
}
