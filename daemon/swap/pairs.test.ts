import { describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import type { EvmChain } from '../chains/evm/chain.js'
import { resolvePair } from './pairs.js'

const token = (symbol: string, n: number, decimals: number) => ({
  symbol,
  address: `0x${n.toString(16).padStart(40, '0')}` as const,
  decimals,
})
const chain = {
  key: 'local-base',
  tokens: { [USDC]: token(USDC, 1, 6), [TOKEN_A]: token(TOKEN_A, 2, 18), [TOKEN_B]: token(TOKEN_B, 3, 6) },
  contracts: { [`pair:${TOKEN_A}/${USDC}`]: token('pair', 4, 0).address },
} as unknown as EvmChain

describe('resolvePair', () => {
  it('tells the kind, and the flow switch that governs it, from the tokens', () => {
    expect(resolvePair(chain, USDC, TOKEN_A)).toMatchObject({ kind: 'entry', flow: 'base.entry' })
    expect(resolvePair(chain, TOKEN_A, TOKEN_B)).toMatchObject({ kind: 'par', flow: 'base.swap' })
    expect(resolvePair(chain, TOKEN_B.toLowerCase(), TOKEN_A)).toMatchObject({
      kind: 'par',
      input: { symbol: TOKEN_B },
    })
    expect(resolvePair(chain, TOKEN_A, USDC)).toMatchObject({ kind: 'redeem', flow: 'base.redeem' })
  })

  it.each([
    [TOKEN_A, TOKEN_A, 'UNSUPPORTED_PAIR'],
    ['DOGE', TOKEN_A, 'UNKNOWN_TOKEN'],
    [USDC, 'FOO', 'UNKNOWN_TOKEN'],
    [TOKEN_B, USDC, 'UNSUPPORTED_PAIR'], // no pool to price it
  ])('%s -> %s is %s', (i, o, code) => {
    expect(() => resolvePair(chain, i, o)).toThrow(expect.objectContaining({ code }))
  })
})
