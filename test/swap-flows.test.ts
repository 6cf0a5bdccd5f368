import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as RfqSwap from '../contracts/evm/artifacts/RfqSwap.js'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { moved, newUser, snapshot } from './helpers/swap-users.js'

const pairAbi = [
  {
    type: 'function',
    name: 'getReserves',
    stateMutability: 'view',
    inputs: [],
    outputs: [{ type: 'uint112' }, { type: 'uint112' }, { type: 'uint32' }],
  },
] as const

let d: TestDaemon
let key: string
beforeAll(async () => {
  d = await startTestDaemon()
  key = await d.partnerKey()
})
afterAll(async () => d?.close())

const solver = () => d.services.accounts.solver
/** The solver pays the gas; everything else must move exactly as the order says. */
const withoutSolverGas = (m: Record<string, bigint>) => {
  expect(m['ETH solver']).toBeLessThan(0n)
  const { 'ETH solver': _gas, ...rest } = m
  return rest
}

describe('entry buy USDC -> PUSD, from a wallet with no ETH', () => {
  it('moves exactly the signed amounts and bumps the router nonce; the user pays no gas', async () => {
    const u = await newUser(d, key, { [USDC]: '100' })
    const before = await snapshot(d, { user: u.address, solver: solver() })
    expect(before['ETH user']).toBe(0n)

    const accepted = await u.parx.swap({ in: USDC, out: TOKEN_A, amount: '25.5' })
    expect(accepted).toMatchObject({
      status: 'submitted',
      kind: 'entry',
      user: u.address,
      nonce: '0',
      in: USDC,
      out: TOKEN_A,
      inputAmount: '25500000',
      minOutputAmount: '25500000000000000000',
      deliverFrom: 'inventory',
      confirm: `/api/base/confirm?hash=${accepted.hash}`,
    })
    expect(accepted.hash).toMatch(/^0x[0-9a-f]{64}$/)
    const done = await u.parx.waitForInclusion(accepted.hash)
    expect(done.swap).toMatchObject({
      orderHash: accepted.orderHash,
      inputAmount: '25500000',
      outputAmount: '25500000000000000000',
      nonce: '0',
    })

    expect(withoutSolverGas(moved(before, await snapshot(d, { user: u.address, solver: solver() })))).toEqual({
      'router nonce user': 1n,
      'USDC permit nonce user': 1n,
      'USDC user': -25_500_000n,
      'PUSD user': 25_500_000_000_000_000_000n,
      'USDC solver': 25_500_000n,
      'PUSD solver': -25_500_000_000_000_000_000n,
    })
  })

  it('reports the orderHash the router computes', async () => {
    const u = await newUser(d, key, { [USDC]: '1' })
    const body = await u.parx.prepare({ in: USDC, out: TOKEN_A, amount: '1' })
    const onChain = await d.services.base.client.readContract({
      address: d.services.base.contracts.router!,
      abi: RfqSwap.abi,
      functionName: 'hashOrder',
      args: [
        {
          ...body.order,
          inputAmount: BigInt(body.order.inputAmount),
          minOutputAmount: BigInt(body.order.minOutputAmount),
          deadline: BigInt(body.order.deadline),
          nonce: BigInt(body.order.nonce),
        },
      ],
    })
    const accepted = await d.call('/api/base/swap', { body, headers: { 'x-api-key': key } })
    expect(accepted.orderHash).toBe(onChain)
  })
})

describe('par swap PUSD (18 decimals) <-> XUSD (6 decimals)', () => {
  it('pays the input rescaled, exact to the last unit, both ways', async () => {
    const u = await newUser(d, key, { [TOKEN_A]: '50' })
    const before = await snapshot(d, { user: u.address, solver: solver() })
    const there = await u.parx.swap({ in: TOKEN_A, out: TOKEN_B, amount: '12.345678' })
    expect(there).toMatchObject({ kind: 'par', inputAmount: '12345678000000000000', minOutputAmount: '12345678' })
    await u.parx.waitForInclusion(there.hash)
    const back = await u.parx.swap({ in: TOKEN_B, out: TOKEN_A, amount: '0.000001' })
    expect(back).toMatchObject({ kind: 'par', nonce: '1', inputAmount: '1', minOutputAmount: '1000000000000' })
    await u.parx.waitForInclusion(back.hash)

    expect(withoutSolverGas(moved(before, await snapshot(d, { user: u.address, solver: solver() })))).toEqual({
      'router nonce user': 2n,
      'PUSD permit nonce user': 1n,
      'XUSD permit nonce user': 1n,
      'PUSD user': -12_345_678_000_000_000_000n + 1_000_000_000_000n,
      'XUSD user': 12_345_678n - 1n,
      'PUSD solver': 12_345_678_000_000_000_000n - 1_000_000_000_000n,
      'XUSD solver': -12_345_678n + 1n,
    })
  })
})

describe('redemption PUSD -> USDC from the solver inventory', () => {
  it('quotes every field of docs/swap-api.md "Redemptions" from the live pool', async () => {
    const chain = d.services.base
    const pusd = chain.tokens[TOKEN_A]!
    const usdc = chain.tokens[USDC]!
    const [r0, r1] = await chain.client.readContract({
      address: chain.contracts[`pair:${TOKEN_A}/${USDC}`]!,
      abi: pairAbi,
      functionName: 'getReserves',
    })
    const [rIn, rOut] = BigInt(pusd.address) < BigInt(usdc.address) ? [r0, r1] : [r1, r0]
    const amountIn = 1234n * 10n ** 18n
    const expected = (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n)

    const u = await newUser(d, key)
    const q = await u.parx.quote({ in: TOKEN_A, amount: '1234' })
    expect(q).toEqual({
      in: TOKEN_A,
      out: USDC,
      chain: chain.key,
      inAmount: 1234,
      usdcOut: Number(expected) / 1e6,
      usdcOutBase: expected.toString(),
      slippageBps: expect.any(Number),
      minOutBase: expect.stringMatching(/^\d+$/),
      slippageBpsMax: 50,
      usdcDec: 6,
      usdc: usdc.address,
      deliverFrom: 'inventory',
      maxUsd: 25_000,
      hardMaxUsd: 100_000,
      solverUsdcInventory: expect.any(Number),
      rate: expect.any(Number),
      inputToken: pusd.address,
    })
    // below par by the LP fee and the price impact, rounded up
    const par = 1234n * 10n ** 6n
    expect(q.slippageBps).toBe(Number(((par - expected) * 10_000n + par - 1n) / par))
    // the floor gives up 10 bps of drift room, within the budget
    expect(BigInt(q.minOutBase)).toBe(expected - (expected * 10n + 9_999n) / 10_000n)
    expect(q.slippageBps + 10).toBeLessThanOrEqual(q.slippageBpsMax)
    expect(q.rate).toBeCloseTo(Number(expected) / 1e6 / 1234, 10)
  })

  it('pays the signed minOutBase from inventory, exactly; the pool does not move', async () => {
    const u = await newUser(d, key, { [TOKEN_A]: '10' })
    const pair = d.services.base.contracts[`pair:${TOKEN_A}/${USDC}`]!
    const holders = { user: u.address, solver: solver(), pool: pair }
    const before = await snapshot(d, holders)
    const r = await u.parx.redeem({ in: TOKEN_A, amount: '10' })
    expect(r.quote.deliverFrom).toBe('inventory')
    expect(r).toMatchObject({
      kind: 'redeem',
      deliverFrom: 'inventory',
      in: TOKEN_A,
      out: USDC,
      minOutputAmount: r.quote.minOutBase,
    })
    const done = await u.parx.waitForInclusion(r.hash)
    expect(done.swap?.outputAmount).toBe(r.quote.minOutBase)

    const floor = BigInt(r.quote.minOutBase)
    expect(withoutSolverGas(moved(before, await snapshot(d, holders)))).toEqual({
      'router nonce user': 1n,
      'PUSD permit nonce user': 1n,
      'PUSD user': -10_000_000_000_000_000_000n,
      'USDC user': floor,
      'PUSD solver': 10_000_000_000_000_000_000n,
      'USDC solver': -floor,
    })
  })
})
