import { type Address, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { type ChannelConfig, channelIdOf } from '../../evm/batch-settlement/contracts.js'
import type { PaymentRequirements } from '../../types.js'
import { readChannelPayment } from './payload.js'

/**
 * The seller's reading of a buyer's channel (issue 39 item 2): the receiver authorizer is always
 * the offered one, and an offer naming none is malformed. A buyer naming itself as authorizer
 * could otherwise refund to itself what it spent.
 */
const buyer: Address = '0x00000000000000000000000000000000000000b1'
const ours: Address = '0x00000000000000000000000000000000000000a9'
const payTo: Address = '0x00000000000000000000000000000000000000c1'
const token: Address = '0x00000000000000000000000000000000000000a1'
const offer = (extra: Record<string, unknown>): PaymentRequirements => ({
  scheme: 'batch-settlement',
  network: 'eip155:84532',
  asset: token,
  amount: '1000',
  payTo,
  maxTimeoutSeconds: 60,
  extra: { withdrawDelay: 900, ...extra },
})
const payload = (receiverAuthorizer: Address) => {
  const config: ChannelConfig = {
    payer: buyer,
    payerAuthorizer: buyer,
    receiver: payTo,
    receiverAuthorizer,
    token,
    withdrawDelay: 900,
    salt: toHex(1, { size: 32 }),
  }
  return {
    type: 'voucher',
    channelConfig: config,
    voucher: { channelId: channelIdOf(config, 84532), maxClaimableAmount: '1000', signature: `0x${'11'.repeat(65)}` },
  }
}

describe('readChannelPayment: the receiver authorizer', () => {
  it('takes a channel naming the offered authorizer', () => {
    const p = readChannelPayment(payload(ours), offer({ receiverAuthorizer: ours }))
    expect('config' in p && p.config.receiverAuthorizer.toLowerCase()).toBe(ours)
  })
  it('refuses a self-authorized channel against an offer naming ours', () => {
    expect(readChannelPayment(payload(buyer), offer({ receiverAuthorizer: ours }))).toMatchObject({
      reason: 'invalid_batch_settlement_evm_receiver_authorizer_mismatch',
    })
  })
  it('refuses any channel against an offer naming no authorizer (or not an address), as malformed requirements', () => {
    for (const extra of [{}, { receiverAuthorizer: 'nobody' }, { receiverAuthorizer: 7 }]) {
      expect(readChannelPayment(payload(buyer), offer(extra))).toMatchObject({ reason: 'invalid_payment_requirements' })
      expect(readChannelPayment(payload(ours), offer(extra))).toMatchObject({ reason: 'invalid_payment_requirements' })
    }
  })
})
