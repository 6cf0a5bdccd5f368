import { Keypair } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { networks, TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import { errorCodeOf as codeOf } from '../../test/helpers/error-code.js'
import { solanaChain } from '../chains/solana/chain.js'
import { checkFlow, resolveSolPair } from './pairs.js'

const spec = networks['local-solana']!
const chain = solanaChain(
  spec,
  'http://127.0.0.1:1',
  'ws://127.0.0.1:2',
  Object.fromEntries(spec.tokens.map((t) => [t.symbol, Keypair.generate().publicKey.toBase58()])),
)

describe('resolveSolPair', () => {
  it('takes the kind, and with it the flow, from the tokens', () => {
    expect(resolveSolPair(chain, USDC, TOKEN_A)).toMatchObject({ kind: 'entry', flow: 'sol.swap' })
    expect(resolveSolPair(chain, TOKEN_A, TOKEN_B)).toMatchObject({ kind: 'par', flow: 'sol.swap' })
    expect(resolveSolPair(chain, TOKEN_B, TOKEN_A)).toMatchObject({ kind: 'par', flow: 'sol.swap' })
    expect(resolveSolPair(chain, TOKEN_B, USDC)).toMatchObject({ kind: 'redeem', flow: 'sol.redeem' })
  })

  it('reads symbols in any case and reports them upper-case', () => {
    const p = resolveSolPair(chain, TOKEN_A.toLowerCase(), TOKEN_B.toLowerCase())
    expect([p.input.symbol, p.output.symbol]).toEqual([TOKEN_A, TOKEN_B])
    expect(p.output.decimals).toBe(6)
  })

  it('refuses unknown symbols and a token swapped for itself', () => {
    expect(codeOf(() => resolveSolPair(chain, 'SOL', USDC))).toBe('UNKNOWN_TOKEN')
    expect(codeOf(() => resolveSolPair(chain, USDC, 'WETH'))).toBe('UNKNOWN_TOKEN')
    expect(codeOf(() => resolveSolPair(chain, TOKEN_A, TOKEN_A.toLowerCase()))).toBe('UNSUPPORTED_PAIR')
  })
})

describe('checkFlow', () => {
  it('refuses a pair whose flow is off, and only that one', () => {
    const off = (flow: string) => flow !== 'sol.redeem'
    expect(codeOf(() => checkFlow(resolveSolPair(chain, TOKEN_A, USDC), off))).toBe('FLOW_DISABLED')
    expect(codeOf(() => checkFlow(resolveSolPair(chain, USDC, TOKEN_A), off))).toBeUndefined()
  })
})
