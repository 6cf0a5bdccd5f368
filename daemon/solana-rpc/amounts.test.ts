import { describe, expect, it } from 'vitest'
import { uiTokenAmount } from './amounts.js'

describe('uiTokenAmount', () => {
  it('answers the way the RPC does', () => {
    expect(uiTokenAmount(2_000_000n, 6)).toEqual({ amount: '2000000', decimals: 6, uiAmount: 2, uiAmountString: '2' })
    expect(uiTokenAmount(1n, 9)).toEqual({ amount: '1', decimals: 9, uiAmount: 1e-9, uiAmountString: '0.000000001' })
  })
})
