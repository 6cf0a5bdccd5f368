import { hashTypedData } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../../src/networks/registry.js'
import { type RfqOrder, rfqOrderTypes } from '../../src/sdk/swap/order.js'
import { orderDomain } from '../../src/sdk/swap/sign.js'
import { checkOrderFields, type OrderContext, orderDigest, wrongSigner } from './order-checks.js'
import type { SwapPair } from './pairs.js'

const a = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const pusd = { symbol: TOKEN_A, address: a(1), decimals: 18 }
const xusd = { symbol: TOKEN_B, address: a(2), decimals: 6 }
const usdc = { symbol: USDC, address: a(3), decimals: 6 }
const par: SwapPair = { kind: 'par', input: pusd, output: xusd, flow: 'base.swap' }
const redeem: SwapPair = { kind: 'redeem', input: pusd, output: usdc, flow: 'base.redeem' }
const user = a(0xaa)
const solver = a(0x50)

const order = (o: Partial<RfqOrder> = {}): RfqOrder => ({
  user,
  inputToken: pusd.address,
  inputAmount: 12_500_000_000_000_000_000n,
  outputToken: xusd.address,
  minOutputAmount: 12_500_000n,
  solver,
  deadline: 2_000_000_000n,
  nonce: 0n,
  ...o,
})
const ctx = (o: Partial<RfqOrder> = {}, x: Partial<OrderContext> = {}): OrderContext => ({
  pair: par,
  user,
  uiAmount: '12.5',
  order: order(o),
  solver,
  ...x,
})
const codeOf = (f: () => void) => {
  try {
    f()
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message }
  }
  return undefined
}

describe('checkOrderFields', () => {
  it('accepts a par order whose minOutputAmount is the input rescaled from 18 to 6 decimals exactly', () => {
    expect(codeOf(() => checkOrderFields(ctx()))).toBeUndefined()
  })

  it('compares addresses in any case', () => {
    expect(
      codeOf(() => checkOrderFields(ctx({}, { user: user.toUpperCase().replace('0X', '0x') as `0x${string}` }))),
    ).toBeUndefined()
  })

  it.each([
    ['user', { user: a(0xbb) }, 'ORDER_MISMATCH', 'order.user'],
    ['inputToken', { inputToken: usdc.address }, 'ORDER_MISMATCH', 'order.inputToken'],
    ['inputAmount', { inputAmount: 12_500_000_000_000_000_001n }, 'AMOUNT_MISMATCH', 'uiAmount 12.5'],
    ['outputToken', { outputToken: pusd.address }, 'ORDER_MISMATCH', 'order.outputToken'],
    ['minOutputAmount', { minOutputAmount: 12_499_999n }, 'ORDER_MISMATCH', 'minOutputAmount = 12500000'],
    ['solver', { solver: a(0x51) }, 'ORDER_MISMATCH', `solver = ${solver}`],
  ])('names %s when it disagrees', (_field, o, code, says) => {
    const r = codeOf(() => checkOrderFields(ctx(o)))
    expect(r?.code).toBe(code)
    expect(r?.message).toContain(says)
  })

  it('reports the first disagreement in SPEC order (user before amount)', () => {
    expect(codeOf(() => checkOrderFields(ctx({ user: a(0xbb), inputAmount: 1n })))?.message).toMatch(/^order\.user/)
  })

  it('refuses a par amount the output token cannot carry exactly', () => {
    const r = codeOf(() =>
      checkOrderFields(
        ctx({ inputAmount: 1_000_000_500_000_000_000n, minOutputAmount: 1_000_000n }, { uiAmount: '1.0000005' }),
      ),
    )
    expect(r?.code).toBe('BAD_REQUEST')
    expect(r?.message).toContain('more than 6 decimal places')
  })

  it('refuses more decimals than the input token has', () => {
    expect(
      codeOf(() =>
        checkOrderFields(
          ctx(
            { inputToken: xusd.address, outputToken: pusd.address },
            { pair: { ...par, input: xusd, output: pusd }, uiAmount: '1.1234567' },
          ),
        ),
      )?.code,
    ).toBe('BAD_REQUEST')
  })

  it('takes any positive floor for a redemption, but not zero', () => {
    const o = { outputToken: usdc.address, minOutputAmount: 12_400_000n }
    expect(codeOf(() => checkOrderFields(ctx(o, { pair: redeem })))).toBeUndefined()
    expect(codeOf(() => checkOrderFields(ctx({ ...o, minOutputAmount: 0n }, { pair: redeem })))?.code).toBe(
      'ORDER_MISMATCH',
    )
  })
})

describe('wrongSigner', () => {
  const domain = { chainId: 84530017, router: a(0x77) }
  it("accepts the user's own signature and names another signer", async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const other = privateKeyToAccount(generatePrivateKey())
    const o = order({ user: owner.address })
    const sign = (who: typeof owner) =>
      who.signTypedData({ domain: orderDomain(domain), types: rfqOrderTypes, primaryType: 'RfqOrder', message: o })
    const digest = orderDigest(o, domain)
    expect(await wrongSigner(digest, await sign(owner), owner.address)).toBeUndefined()
    expect(await wrongSigner(digest, await sign(other), owner.address)).toBe(other.address)
    expect(await wrongSigner(digest, '0x1234', owner.address)).toBeNull()
  })
})

describe('orderDigest', () => {
  it('is the EIP-712 digest a wallet signs, for any router and chain', () => {
    for (const domain of [
      { chainId: 84530017, router: a(0x77) },
      { chainId: 8453, router: a(0x78) },
    ]) {
      const o = order({ nonce: 7n })
      expect(orderDigest(o, domain)).toBe(
        hashTypedData({ domain: orderDomain(domain), types: rfqOrderTypes, primaryType: 'RfqOrder', message: o }),
      )
    }
  })
})
