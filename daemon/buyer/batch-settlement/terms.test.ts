import { describe, expect, it } from 'vitest'
import { BATCH_SETTLEMENT_ADDRESS } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { PaymentRequirements } from '../../../src/sdk/x402/types.js'
import type { EvmChain, EvmToken } from '../../chains/evm/chain.js'
import { channelTerms, depositAmount } from './terms.js'

describe('depositAmount', () => {
  const base = { needed: 1000n, price: 1000n, multiplier: 10, cap: 5_000_000n, room: null }
  it('is multiplier x the price, or the seller minDeposit when larger', () => {
    expect(depositAmount(base)).toBe(10_000n)
    expect(depositAmount({ ...base, minDeposit: 50_000n })).toBe(50_000n)
    expect(depositAmount({ ...base, minDeposit: 500n })).toBe(10_000n)
  })
  it('never above the cap nor what the day still allows, never below what this request needs', () => {
    expect(depositAmount({ ...base, minDeposit: 9_000_000n })).toBe(5_000_000n)
    expect(depositAmount({ ...base, room: 3000n })).toBe(3000n)
    expect(depositAmount({ ...base, room: 10n })).toBe(1000n)
  })
  it('refuses a request that alone needs more than the cap', () => {
    expect(() => depositAmount({ ...base, needed: 6_000_000n })).toThrow(
      expect.objectContaining({ code: 'CHANNEL_TERMS_REFUSED' }),
    )
  })
})

describe('channelTerms', () => {
  const usdc: EvmToken = {
    symbol: 'USDC',
    address: '0x00000000000000000000000000000000000000a1',
    decimals: 6,
    eip3009: true,
    permitDomain: { name: 'USD Coin', version: '2' },
  }
  const pusd: EvmToken = {
    symbol: 'PUSD',
    address: '0x00000000000000000000000000000000000000a2',
    decimals: 6,
    permitDomain: { name: 'PUSD', version: '1' },
  }
  const chain = (code: string) =>
    ({
      key: 'local-base',
      chainId: 84532,
      spec: { caip2: 'eip155:84532' },
      client: { getCode: async () => code },
    }) as unknown as EvmChain
  const payer = '0x00000000000000000000000000000000000000b1'
  const offer = (extra: Record<string, unknown> = {}, o: Partial<PaymentRequirements> = {}) =>
    ({
      scheme: 'batch-settlement',
      network: 'eip155:84532',
      asset: usdc.address,
      amount: '1000',
      payTo: '0x00000000000000000000000000000000000000c1',
      maxTimeoutSeconds: 60,
      extra: {
        name: 'USD Coin',
        version: '2',
        receiverAuthorizer: '0x00000000000000000000000000000000000000d1',
        withdrawDelay: 900,
        ...extra,
      },
      ...o,
    }) as PaymentRequirements
  const refused = (p: Promise<unknown>, text: string) =>
    expect(p).rejects.toMatchObject({ code: 'CHANNEL_TERMS_REFUSED', message: expect.stringContaining(text) })

  it('takes a sound offer: the channel config is ours (payer, zero salt) with the seller receiver, authorizer, token and delay', async () => {
    const t = await channelTerms(chain('0x60'), [usdc, pusd], payer, [offer()])
    expect(t).toMatchObject({
      price: 1000n,
      config: { payer, payerAuthorizer: payer, withdrawDelay: 900, token: usdc.address },
      channelId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    })
  })
  it('leaves offers on other networks and in tokens it does not deposit by ERC-3009 to the other offers', async () => {
    expect(await channelTerms(chain('0x60'), [usdc, pusd], payer, [offer({}, { network: 'eip155:1' })])).toBeUndefined()
    expect(
      await channelTerms(chain('0x60'), [usdc, pusd], payer, [
        offer({ name: 'PUSD', version: '1' }, { asset: pusd.address }),
      ]),
    ).toBeUndefined()
  })
  it('refuses another contract, a network without the contract, a foreign token domain, a zero authorizer, a delay out of bounds, permit2', async () => {
    await refused(
      channelTerms(chain('0x60'), [usdc], payer, [
        offer({ verifyingContract: '0x00000000000000000000000000000000000000e1' }),
      ]),
      BATCH_SETTLEMENT_ADDRESS,
    )
    expect(
      await channelTerms(chain('0x60'), [usdc], payer, [offer({ verifyingContract: BATCH_SETTLEMENT_ADDRESS })]),
    ).toBeDefined()
    await refused(channelTerms(chain('0x'), [usdc], payer, [offer()]), 'not deployed')
    await refused(channelTerms(chain('0x60'), [usdc], payer, [offer({ name: 'Fake' })]), 'token domain')
    await refused(
      channelTerms(chain('0x60'), [usdc], payer, [
        offer({ receiverAuthorizer: '0x0000000000000000000000000000000000000000' }),
      ]),
      'receiverAuthorizer',
    )
    await refused(channelTerms(chain('0x60'), [usdc], payer, [offer({ withdrawDelay: 60 })]), 'withdrawDelay')
    await refused(channelTerms(chain('0x60'), [usdc], payer, [offer({ assetTransferMethod: 'permit2' })]), 'permit2')
  })
  it("with the platform's bounds (a new pay), refuses a withdraw delay or a minDeposit above them; a refund takes the channel as it is", async () => {
    const bounds = { maxWithdrawDelay: 86_400, depositCap: '5' }
    expect(
      await channelTerms(
        chain('0x60'),
        [usdc],
        payer,
        [offer({ withdrawDelay: 86_400, minDeposit: '5000000' })],
        bounds,
      ),
    ).toBeDefined()
    await refused(
      channelTerms(chain('0x60'), [usdc], payer, [offer({ withdrawDelay: 86_401 })], bounds),
      'withdrawDelay of 86401 s, above the platform',
    )
    await refused(
      channelTerms(chain('0x60'), [usdc], payer, [offer({ minDeposit: '250000000' })], bounds),
      'minDeposit of 250 USDC, above the platform',
    )
    expect(
      await channelTerms(chain('0x60'), [usdc], payer, [
        offer({ withdrawDelay: 30 * 86_400, minDeposit: '250000000' }),
      ]),
    ).toBeDefined()
  })
})
