import { describe, expect, it } from 'vitest'
import type { EvmOrder } from '../../../../contracts/xchain/statement.js'
import { decodeEvmOrder, encodeEvmOrder } from './order-data.js'

describe('evm-origin order data', () => {
  it('round-trips every field exactly, amounts above 2^53 included', () => {
    const order: EvmOrder = {
      user: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      inputToken: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
      inputAmount: 12_500_000_000_000_000_001n,
      destChain: `0x${'11'.repeat(32)}`,
      outputToken: `0x${'22'.repeat(32)}`,
      outputAmount: 2n ** 64n - 1n,
      recipient: `0x${'33'.repeat(32)}`,
      fillDeadline: 1_800_000_000,
      expires: 1_800_000_010,
      nonce: 2n ** 63n + 5n,
    }
    expect(decodeEvmOrder(encodeEvmOrder(order))).toEqual(order)
  })
})
