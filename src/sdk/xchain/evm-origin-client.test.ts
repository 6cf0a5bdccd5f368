import { type Address, hashTypedData } from 'viem'
import { describe, expect, it } from 'vitest'
import { type EvmOrder, evmOrderId, evmOrderTypes, SOURCE_ESCROW_DOMAIN } from '../../../contracts/xchain/statement.js'
import { permitTypes } from '../eip712.js'
import { typedDataForViem } from './evm-origin-client.js'

const escrow = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as Address
const order: EvmOrder = {
  user: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  inputToken: '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0',
  inputAmount: 12_500_000_000_000_000_000n,
  destChain: `0x${'11'.repeat(32)}`,
  outputToken: `0x${'22'.repeat(32)}`,
  outputAmount: 12_500_000_000n,
  recipient: `0x${'33'.repeat(32)}`,
  fillDeadline: 1_800_000_000,
  expires: 1_800_000_010,
  nonce: 2n ** 63n + 5n,
}

describe('evm-origin typed data on the wire', () => {
  it('the order as the build response sends it (uint256 as decimal strings), converted for viem, hashes to the order id', () => {
    const wire = {
      ...order,
      inputAmount: order.inputAmount.toString(),
      outputAmount: order.outputAmount.toString(),
      nonce: order.nonce.toString(),
    }
    const td = typedDataForViem({
      domain: { ...SOURCE_ESCROW_DOMAIN, chainId: 84530017, verifyingContract: escrow },
      types: evmOrderTypes,
      primaryType: 'Order',
      message: wire,
    })
    expect((td.message as Record<string, unknown>).inputAmount).toBe(order.inputAmount)
    expect((td.message as Record<string, unknown>).fillDeadline).toBe(order.fillDeadline)
    expect(hashTypedData(td as never)).toBe(evmOrderId(order, 84530017, escrow))
  })

  it('a permit with decimal-string values hashes as the same permit with bigints', () => {
    const message = { owner: order.user, spender: escrow, value: 10n ** 30n, nonce: 3n, deadline: 1_800_000_000n }
    const domain = { name: 'Parx USD', version: '1', chainId: 1, verifyingContract: order.inputToken }
    const json = typedDataForViem({
      domain,
      types: permitTypes,
      primaryType: 'Permit',
      message: { ...message, value: String(message.value), nonce: '3', deadline: '1800000000' },
    })
    expect(hashTypedData(json as never)).toBe(
      hashTypedData({ domain, types: permitTypes, primaryType: 'Permit', message }),
    )
  })
})
