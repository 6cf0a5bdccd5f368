import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  chainRef,
  type Delivery,
  type EvmOrder,
  evmDeliveryDigest,
  evmOrderDelivery,
  evmOrderId,
  evmParty,
  SOL_DELIVERY_MESSAGE_LEN,
  type SolOrder,
  solDeliveryMessage,
  solOrderBytes,
  solOrderId,
} from './statement.js'

const key = (n: number) => new Uint8Array(32).fill(n)
const escrow = getAddress('0x00000000000000000000000000000000000000e5')
const order: EvmOrder = {
  user: getAddress('0x0000000000000000000000000000000000000001'),
  inputToken: getAddress('0x0000000000000000000000000000000000000002'),
  inputAmount: 10n ** 18n,
  destChain: chainRef('solana:ParxLoca1So1anaC1uster1111111'),
  outputToken: `0x${'11'.repeat(32)}`,
  outputAmount: 10n ** 9n,
  recipient: `0x${'22'.repeat(32)}`,
  fillDeadline: 100,
  expires: 200,
  nonce: 7n,
}

describe('cross-chain statement', () => {
  it('names chains by sha256 of their CAIP-2 id', () => {
    expect(chainRef('eip155:1')).toMatch(/^0x[0-9a-f]{64}$/)
    expect(chainRef('eip155:1')).not.toBe(chainRef('eip155:2'))
  })
  it('binds an EVM order id to the chain, the escrow and every field', () => {
    const id = evmOrderId(order, 84530017, escrow)
    expect(evmOrderId(order, 84530018, escrow)).not.toBe(id)
    expect(evmOrderId({ ...order, outputAmount: order.outputAmount + 1n }, 84530017, escrow)).not.toBe(id)
    expect(evmOrderId({ ...order, nonce: 8n }, 84530017, escrow)).not.toBe(id)
  })
  it('packs Solana orders in 276 bytes and hashes them', () => {
    const o: SolOrder = {
      program: key(1),
      user: key(2),
      inputMint: key(3),
      inputAmount: 5n,
      destChain: chainRef('eip155:84530017'),
      outputToken: evmParty(order.inputToken),
      outputAmount: 5n * 10n ** 9n,
      recipient: evmParty(order.user),
      fillDeadline: 100n,
      expires: 200n,
      nonce: 1n,
    }
    expect(solOrderBytes(o).length).toBe(276)
    expect(solOrderId(o)).not.toBe(solOrderId({ ...o, nonce: 2n }))
  })
  it('gives the delivery statement its two encodings', () => {
    const d: Delivery = {
      orderId: `0x${'33'.repeat(32)}`,
      destChain: order.destChain,
      recipient: order.recipient,
      outputToken: order.outputToken,
      amount: 1n,
      solver: evmParty(order.user),
    }
    expect(solDeliveryMessage(d, key(9)).length).toBe(SOL_DELIVERY_MESSAGE_LEN)
    expect(evmDeliveryDigest(d, 1, escrow)).not.toBe(evmDeliveryDigest({ ...d, solver: evmParty(escrow) }, 1, escrow))
    expect(() => solDeliveryMessage({ ...d, amount: -1n }, key(9))).toThrow(RangeError)
  })
  it('builds the delivery of an EVM order from the order, as SourceEscrow.claim does', () => {
    const id = evmOrderId(order, 84530017, escrow)
    const solver = evmParty(escrow)
    expect(evmOrderDelivery(order, id, solver)).toEqual({
      orderId: id,
      destChain: order.destChain,
      recipient: order.recipient,
      outputToken: order.outputToken,
      amount: order.outputAmount,
      solver,
    })
  })
})
