import { type Hex, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type ChannelConfig, channelIdOf, voucherTypedData } from '../../evm/batch-settlement/contracts.js'
import { reasons } from '../../reasons.js'
import type { ChannelRecord } from './store.js'
import { verifyVoucherLocally } from './verify.js'

const CHAIN = 31337
const NOW = 1_800_000_000_000
const payer = privateKeyToAccount(generatePrivateKey())
const config: ChannelConfig = {
  payer: payer.address,
  payerAuthorizer: payer.address,
  receiver: '0x00000000000000000000000000000000000000b2',
  receiverAuthorizer: '0x00000000000000000000000000000000000000c3',
  token: '0x00000000000000000000000000000000000000d4',
  withdrawDelay: 900,
  salt: `0x${'00'.repeat(32)}`,
}
const channelId = channelIdOf(config, CHAIN)
const channel = (o: Partial<ChannelRecord> = {}): ChannelRecord => ({
  channelId,
  network: 'eip155:31337',
  config,
  chargedCumulativeAmount: '1000',
  signedMaxClaimable: '1000',
  signature: '0x',
  balance: '30000',
  totalClaimed: '0',
  withdrawRequestedAt: 0,
  refundNonce: '0',
  syncedAt: NOW - 1_000,
  lastRequestAt: NOW,
  pendingId: null,
  pendingExpiresAt: null,
  tag: null,
  ...o,
})
const sign = (amount: bigint, by = payer) => by.signTypedData(voucherTypedData(CHAIN, channelId, amount))
const check = async (
  o: {
    amount?: bigint
    signature?: Hex
    channel?: ChannelRecord | undefined
    config?: ChannelConfig
    ttlMs?: number
  } = {},
) => {
  const amount = o.amount ?? 2000n
  return verifyVoucherLocally({
    config: o.config ?? config,
    channelId,
    maxClaimableAmount: amount,
    signature: o.signature ?? (await sign(amount)),
    chainId: CHAIN,
    channel: 'channel' in o ? o.channel : channel(),
    ttlMs: o.ttlMs ?? 60_000,
    now: NOW,
  })
}

describe('local voucher verification', () => {
  it('accepts an EOA voucher above the claimed total and within the balance, against a fresh mirror', async () => {
    expect(await check()).toEqual({ isValid: true })
    expect(await check({ amount: 30_000n })).toEqual({ isValid: true })
  })

  it('refuses with the spec reasons: wrong signer, above the balance, not above the claimed total, config of another channel', async () => {
    const other = privateKeyToAccount(generatePrivateKey())
    expect(await check({ signature: await sign(2000n, other) })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchVoucherSignature,
    })
    expect(await check({ signature: await sign(1999n) })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchVoucherSignature,
    })
    expect(await check({ amount: 30_001n })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchCumulativeExceedsBalance,
    })
    expect(await check({ amount: 5000n, channel: channel({ totalClaimed: '5000' }) })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchCumulativeBelowClaimed,
    })
    expect(await check({ config: { ...config, salt: `0x${'01'.repeat(32)}` } })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchChannelIdMismatch,
    })
  })

  it("refuses what the contract would refuse at the claim: a malleated signature (high s) of the payer authorizer's own voucher", async () => {
    const sig = await sign(2000n)
    const s = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n - BigInt(`0x${sig.slice(66, 130)}`)
    const high = `${sig.slice(0, 66)}${s.toString(16).padStart(64, '0')}${sig.endsWith('1b') ? '1c' : '1b'}` as Hex
    expect(await check({ signature: high })).toMatchObject({
      isValid: false,
      invalidReason: reasons.batchVoucherSignature,
    })
    expect(await check({ signature: sig })).toEqual({ isValid: true })
    // Its key now kept: another key's voucher is still refused.
    expect(
      await check({ amount: 3000n, signature: await sign(3000n, privateKeyToAccount(generatePrivateKey())) }),
    ).toMatchObject({ isValid: false, invalidReason: reasons.batchVoucherSignature })
    expect(await check({ amount: 3000n })).toEqual({ isValid: true })
  })

  it('leaves to the facilitator what it cannot judge here: no mirror, a stale one, a smart-wallet payer, a withdrawal under way', async () => {
    expect(await check({ channel: undefined })).toBeUndefined()
    expect(await check({ channel: channel({ syncedAt: null }) })).toBeUndefined()
    expect(await check({ channel: channel({ syncedAt: NOW - 61_000 }) })).toBeUndefined()
    expect(await check({ config: { ...config, payerAuthorizer: zeroAddress } })).toBeUndefined()
    expect(await check({ channel: channel({ withdrawRequestedAt: 1 }) })).toBeUndefined()
  })
})
