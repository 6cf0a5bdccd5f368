import { BaseError } from '../errors/index.js'
import { USDC } from './registry.js'

/**
 * par: partner stable to partner stable; entry: USDC to a partner stable; redeem: partner stable to
 * USDC. The kind follows from the tokens, never from the path a request was posted to, on every chain.
 */
export type SwapKind = 'par' | 'entry' | 'redeem'

/** A token of a network by symbol (any case), or UNKNOWN_TOKEN naming the field and the choices. */
export function pickToken<T>(tokens: Record<string, T>, network: string, symbol: string, field: string): T {
  const t = tokens[symbol.toUpperCase()]
  if (!t)
    throw new BaseError(
      'UNKNOWN_TOKEN',
      `${field} '${symbol}' is not a token of ${network}; use one of ${Object.keys(tokens).join(', ')}`,
    )
  return t
}

export function pairOf<T extends { symbol: string }>(
  tokens: Record<string, T>,
  network: string,
  inSymbol: string,
  outSymbol: string,
) {
  const input = pickToken(tokens, network, inSymbol, 'in')
  const output = pickToken(tokens, network, outSymbol, 'out')
  if (input.symbol === output.symbol) {
    throw new BaseError('UNSUPPORTED_PAIR', `in and out are both ${input.symbol}: a swap needs two different tokens`)
  }
  const kind: SwapKind = input.symbol === USDC ? 'entry' : output.symbol === USDC ? 'redeem' : 'par'
  return { kind, input, output }
}
