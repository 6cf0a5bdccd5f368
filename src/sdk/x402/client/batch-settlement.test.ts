import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { BATCH_SETTLEMENT_ADDRESS } from '../evm/batch-settlement/contracts.js'
import { signVoucher } from '../evm/batch-settlement/sign.js'
import { reasons } from '../reasons.js'
import type { PaymentRequired, PaymentRequirements, SettleResponse } from '../types.js'
import { type ChannelOptions, type ChannelReader, ChannelWallet } from './batch-settlement.js'

const buyer = privateKeyToAccount(generatePrivateKey())
const offer = (extra: Record<string, unknown> = {}, amount = '1000'): PaymentRequirements => ({
  scheme: 'batch-settlement',
  network: 'eip155:8453',
  amount,
  maxTimeoutSeconds: 60,
  asset: '0x00000000000000000000000000000000000000a1',
  payTo: '0x00000000000000000000000000000000000000c1',
  extra: {
    name: 'USD Coin',
    version: '2',
    receiverAuthorizer: '0x00000000000000000000000000000000000000d1',
    withdrawDelay: 900,
    ...extra,
  },
})
/** The chain as a wallet reads it: the channel's balance and claimed total (`readContract` of `channels`), counted. */
function chainAt(balance = 0n, totalClaimed = 0n) {
  const c = {
    balance,
    totalClaimed,
    reads: 0,
    chain: { id: 8453 },
    readContract: async () => (c.reads++, [c.balance, c.totalClaimed]),
  }
  return c as typeof c & ChannelReader
}
const wallet = (options: ChannelOptions = {}, chain = chainAt()) => new ChannelWallet(buyer, options, [chain])
const settle = (extra?: Record<string, unknown>): SettleResponse => ({
  success: true,
  transaction: '',
  network: 'eip155:8453',
  ...(extra ? { extra } : {}),
})

describe('ChannelWallet', () => {
  const ch2 = () => wallet().channelFor(offer())
  it('pays only offers whose deposit cannot go elsewhere: the canonical contract, eip3009, a non-zero authorizer, a delay in bounds', () => {
    const w = wallet()
    expect(w.pays(offer())).toBe(true)
    expect(w.pays(offer({ verifyingContract: BATCH_SETTLEMENT_ADDRESS }))).toBe(true)
    expect(w.pays(offer({ verifyingContract: '0x00000000000000000000000000000000000000e1' }))).toBe(false)
    expect(w.pays(offer({ assetTransferMethod: 'permit2' }))).toBe(false)
    expect(w.pays(offer({ receiverAuthorizer: '0x0000000000000000000000000000000000000000' }))).toBe(false)
    expect(w.pays(offer({ withdrawDelay: 60 }))).toBe(false)
    expect(w.pays({ ...offer(), scheme: 'exact' })).toBe(false)
    expect(w.pays({ ...offer(), network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' })).toBe(false)
    expect(() => w.channelFor(offer({ withdrawDelay: 60 }))).toThrow(/withdrawDelay of 60.*nothing was paid/)
  })

  it('within its own bounds: a withdraw delay of a day at most, a minDeposit within maxDeposit, a chain it can read', () => {
    const w = wallet()
    expect(w.pays(offer({ withdrawDelay: 86_400 }))).toBe(true)
    expect(w.pays(offer({ withdrawDelay: 86_401 }))).toBe(false)
    expect(() => w.channelFor(offer({ withdrawDelay: 30 * 86_400 }))).toThrow(
      expect.objectContaining({
        code: 'CHANNEL_TERMS_REFUSED',
        message: expect.stringMatching(/withdrawDelay of 2592000 s, above this buyer's maxWithdrawDelay of 86400 s/),
      }),
    )
    expect(wallet({ maxWithdrawDelay: 30 * 86_400 }).pays(offer({ withdrawDelay: 30 * 86_400 }))).toBe(true)
    expect(w.pays(offer({ minDeposit: '5000000' }))).toBe(true)
    expect(w.pays(offer({ minDeposit: '250000000' }))).toBe(false)
    expect(new ChannelWallet(buyer).pays(offer())).toBe(false)
    expect(() => new ChannelWallet(buyer).channelFor(offer())).toThrow(/no public client/)
  })

  it('deposits multiplier x the price (at least minDeposit and what is needed, at most maxDeposit), then signs vouchers while the balance covers', async () => {
    const w = wallet({ depositMultiplier: 3, maxDeposit: 5000n })
    const ch = w.channelFor(offer())
    const first = await w.payload(ch, offer())
    expect(first.deposit).toBe(3000n)
    expect(first.payload).toMatchObject({
      type: 'deposit',
      voucher: { channelId: ch.id, maxClaimableAmount: '1000' },
      deposit: { amount: '3000' },
    })
    expect(
      w.settled(ch, offer(), settle({ channelState: { chargedCumulativeAmount: '1000' } }), 200, first.deposit),
    ).toBe(true)
    expect(ch).toMatchObject({ charged: 1000n, balance: 3000n })
    expect((await w.payload(ch, offer())).payload).toMatchObject({
      type: 'voucher',
      voucher: { maxClaimableAmount: '2000' },
    })
    // minDeposit between 3x the price and maxDeposit: minDeposit.
    const fresh = () => wallet({ depositMultiplier: 3, maxDeposit: 5000n })
    expect((await fresh().payload(fresh().channelFor(offer()), offer({ minDeposit: '4000' }))).deposit).toBe(4000n)
    // Above maxDeposit, or a request needing more: refused, nothing signed.
    await expect(fresh().payload(fresh().channelFor(offer()), offer({ minDeposit: '9000' }))).rejects.toThrow(
      /needs a deposit of 9000 base units, above this buyer's maxDeposit of 5000/,
    )
    await expect(wallet({ maxDeposit: 999n }).payload(ch2(), offer())).rejects.toThrow(
      /needs a deposit of 1000 base units, above this buyer's maxDeposit of 999/,
    )
    // Defaults: 10x the price, at most 5 USDC.
    expect((await wallet().payload(ch2(), offer({}, '1000000'))).deposit).toBe(5_000_000n)
  })

  it("signs a deposit valid for its own validity at most, whatever the offer's maxTimeoutSeconds", async () => {
    const year = { ...offer(), maxTimeoutSeconds: 365 * 86_400 }
    const validFor = async (w: ChannelWallet, r: PaymentRequirements) => {
      const at = Math.floor(Date.now() / 1000)
      const { payload } = await w.payload(w.channelFor(r), r)
      return Number((payload as any).deposit.authorization.erc3009Authorization.validBefore) - at
    }
    expect(await validFor(wallet(), year)).toBeLessThanOrEqual(301)
    expect(await validFor(wallet({ validitySeconds: 30 }), year)).toBeLessThanOrEqual(31)
    expect(await validFor(wallet(), { ...offer(), maxTimeoutSeconds: 20 })).toBeLessThanOrEqual(21)
  })

  it("deposits from the chain's balance, never the seller's: a lie about it neither skips nor inflates a deposit", async () => {
    const chain = chainAt()
    const w = wallet({ depositMultiplier: 3 }, chain)
    const ch = w.channelFor(offer())
    const first = await w.payload(ch, offer())
    // The seller reports a balance of 0 after the deposit: the next request is still a voucher, the chain not even read.
    w.settled(
      ch,
      offer(),
      settle({ channelState: { chargedCumulativeAmount: '1000', balance: '0' } }),
      200,
      first.deposit,
    )
    chain.balance = 3000n
    const reads = chain.reads
    expect((await w.payload(ch, offer())).deposit).toBeUndefined()
    expect(chain.reads).toBe(reads)
    // A seller reporting a huge balance: once our deposit is spent, the chain decides, and it says top up.
    w.settled(ch, offer(), settle({ channelState: { chargedCumulativeAmount: '2000', balance: '99000000' } }), 200)
    w.settled(ch, offer(), settle({ channelState: { chargedCumulativeAmount: '3000', balance: '99000000' } }), 200)
    expect(ch.balance).toBe(3000n)
    const topUp = await w.payload(ch, offer())
    expect(topUp).toMatchObject({
      deposit: 3000n,
      payload: { type: 'deposit', voucher: { maxClaimableAmount: '4000' } },
    })
    expect(chain.reads).toBe(reads + 1)
    // A new process on a funded channel (the chain holds 6000, 3000 claimed): a voucher from the claimed total, no deposit.
    const again = wallet({}, chainAt(6000n, 3000n))
    const resumed = again.channelFor(offer())
    expect((await again.payload(resumed, offer())).payload).toMatchObject({
      type: 'voucher',
      voucher: { maxClaimableAmount: '4000' },
    })
    // And one the chain says is short by 500: the deposit is what the chain lacks, not the whole total.
    const short = wallet({ depositMultiplier: 1 }, chainAt(3500n, 3000n))
    expect((await short.payload(short.channelFor(offer()), offer())).deposit).toBe(1000n)
  })

  it('a refused payment changes nothing it knows', () => {
    const w = wallet()
    const ch = w.channelFor(offer())
    expect(
      w.settled(
        ch,
        offer(),
        { success: false, transaction: '', network: 'eip155:8453', errorReason: 'x' },
        402,
        10_000n,
      ),
    ).toBe(false)
    expect(w.settled(ch, offer(), settle(), 500, 10_000n)).toBe(false)
    expect(ch).toMatchObject({ charged: 0n, balance: 0n })
  })

  describe('resync from a corrective 402', () => {
    const corrective = (
      state: Record<string, unknown>,
      voucherState?: Record<string, unknown>,
      error: string = reasons.batchCumulativeAmountMismatch,
    ): PaymentRequired => ({
      x402Version: 2,
      error,
      resource: { url: 'http://127.0.0.1/x' },
      accepts: [offer({ channelState: state, ...(voucherState ? { voucherState } : {}) })],
    })
    const setUp = () => {
      const w = wallet()
      const ch = w.channelFor(offer())
      ch.charged = 2000n
      ch.balance = 10_000n
      return { w, ch }
    }

    it('takes a higher total only with our own voucher for at least that much', async () => {
      const { w, ch } = setUp()
      const ours = await signVoucher(buyer, ch.chainId, ch.id, 5000n)
      expect(
        w.resync(
          ch,
          corrective(
            { channelId: ch.id, chargedCumulativeAmount: '5000', balance: '10000' },
            { signedMaxClaimable: '5000', signature: ours.signature },
          ),
        ),
      ).toBe(true)
      expect(ch).toMatchObject({ charged: 5000n, balance: 10_000n })
    })

    it('refuses a higher total with no voucher, another key’s, one for less, or one for another channel', async () => {
      const { w, ch } = setUp()
      const state = { channelId: ch.id, chargedCumulativeAmount: '5000', balance: '10000' }
      const stranger = privateKeyToAccount(generatePrivateKey())
      expect(w.resync(ch, corrective(state))).toBe(false)
      expect(
        w.resync(
          ch,
          corrective(state, {
            signedMaxClaimable: '5000',
            signature: (await signVoucher(stranger, ch.chainId, ch.id, 5000n)).signature,
          }),
        ),
      ).toBe(false)
      expect(
        w.resync(
          ch,
          corrective(state, {
            signedMaxClaimable: '4000',
            signature: (await signVoucher(buyer, ch.chainId, ch.id, 4000n)).signature,
          }),
        ),
      ).toBe(false)
      const otherChannel = `0x${'ab'.repeat(32)}` as const
      expect(
        w.resync(
          ch,
          corrective(state, {
            signedMaxClaimable: '5000',
            signature: (await signVoucher(buyer, ch.chainId, otherChannel, 5000n)).signature,
          }),
        ),
      ).toBe(false)
      expect(ch).toMatchObject({ charged: 2000n, balance: 10_000n })
    })

    it('takes a lower total as is, and ignores a 402 that is not corrective or names another channel', () => {
      const { w, ch } = setUp()
      expect(
        w.resync(
          ch,
          corrective(
            { channelId: ch.id, chargedCumulativeAmount: '1000', balance: '10000' },
            undefined,
            'invalid_batch_settlement_evm_signature',
          ),
        ),
      ).toBe(false)
      expect(
        w.resync(
          ch,
          corrective({ channelId: `0x${'ab'.repeat(32)}`, chargedCumulativeAmount: '1000', balance: '10000' }),
        ),
      ).toBe(false)
      expect(w.resync(ch, corrective({ channelId: ch.id, chargedCumulativeAmount: '1000', balance: '10000' }))).toBe(
        true,
      )
      expect(ch.charged).toBe(1000n)
    })
  })

  it('runs the requests of one channel one at a time', async () => {
    const w = wallet()
    const ch = w.channelFor(offer())
    const order: string[] = []
    const slow = w.exclusive(ch, async () => {
      await new Promise((r) => setTimeout(r, 20))
      order.push('first')
    })
    const failing = w.exclusive(ch, async () => {
      order.push('second')
      throw new Error('refused')
    })
    const third = w.exclusive(ch, async () => void order.push('third'))
    await Promise.allSettled([slow, failing, third])
    await expect(failing).rejects.toThrow('refused')
    expect(order).toEqual(['first', 'second', 'third'])
  })
})
