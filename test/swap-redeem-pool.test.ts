import { type Address, encodeFunctionData, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { ApiError } from '../src/sdk/http.js'
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
const e18 = 10n ** 18n
const SINK: Address = '0x000000000000000000000000000000000000dEaD'

// A wider slippage budget than the default, so redemptions above maxUsd (25 000) can still be priced,
// and the pool, pushed below par by them, still serves the later ones.
let d: TestDaemon
let key: string
beforeAll(async () => {
  d = await startTestDaemon({ flags: { limits: { slippageBpsMax: 400 } } })
  key = await d.partnerKey()
})
afterAll(async () => d?.close())

const pair = () => d.services.base.contracts[`pair:${TOKEN_A}/${USDC}`]!
/** What the V2 pool pays right now for `amountIn` PUSD, computed here from its reserves. */
async function poolOut(amountIn: bigint): Promise<bigint> {
  const chain = d.services.base
  const [r0, r1] = await chain.client.readContract({ address: pair(), abi: pairAbi, functionName: 'getReserves' })
  const [rIn, rOut] = BigInt(chain.tokens[TOKEN_A]!.address) < BigInt(chain.tokens[USDC]!.address) ? [r0, r1] : [r1, r0]
  return (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n)
}
const holders = (user: Address) => ({ user, solver: d.services.accounts.solver, pool: pair() })

describe('redemption through the pool', () => {
  it('routes a redemption above maxUsd through the pool even while the solver holds USDC', async () => {
    const u = await newUser(d, key, { [TOKEN_A]: '30000' })
    const before = await snapshot(d, holders(u.address))
    expect(before['USDC solver']).toBeGreaterThan(30_000n * 10n ** 6n)
    const expected = await poolOut(30_000n * e18)

    const r = await u.parx.redeem({ in: TOKEN_A, amount: '30000' })
    expect(r.quote).toMatchObject({ deliverFrom: 'pool', maxUsd: 25_000, usdcOutBase: expected.toString() })
    expect(r.deliverFrom).toBe('pool')
    const done = await u.parx.waitForInclusion(r.hash)
    expect(done.swap?.outputAmount).toBe(expected.toString())
    expect(expected).toBeGreaterThan(BigInt(r.quote.minOutBase))

    // The user's input goes to the pool and the pool's output to the user; the solver only pays gas.
    const m = moved(before, await snapshot(d, holders(u.address)))
    expect(m['ETH solver']).toBeLessThan(0n)
    delete m['ETH solver']
    expect(m).toEqual({
      'router nonce user': 1n,
      'PUSD permit nonce user': 1n,
      'PUSD user': -30_000n * e18,
      'USDC user': expected,
      'PUSD pool': 30_000n * e18,
      'USDC pool': -expected,
    })
  })

  it('refuses a signed floor the pool no longer pays (QUOTE_STALE), changing nothing, and succeeds after a re-quote', async () => {
    const slow = await newUser(d, key, { [TOKEN_A]: '100' })
    const fast = await newUser(d, key, { [TOKEN_A]: '25001' })
    const q = await slow.parx.quote({ in: TOKEN_A, amount: '100' })
    const body = await slow.parx.prepare({
      in: TOKEN_A,
      out: USDC,
      amount: '100',
      minOutputAmount: BigInt(q.minOutBase),
    })
    // someone else's redemption above maxUsd goes through the pool and moves it far beyond the 10 bps drift room
    await fast.parx.waitForInclusion((await fast.parx.redeem({ in: TOKEN_A, amount: '25001' })).hash)

    const before = await snapshot(d, holders(slow.address))
    const res = await d.raw('/api/base/redeem', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    })
    expect([res.status, res.body.code], res.body.error).toEqual([400, 'QUOTE_STALE'])
    expect(res.body.error).toContain('re-quote')
    expect(await snapshot(d, holders(slow.address))).toEqual(before)

    const again = await slow.parx.redeem({ in: TOKEN_A, amount: '100' })
    expect((await slow.parx.waitForInclusion(again.hash)).swap?.outputAmount).toBe(again.quote.minOutBase)
  })

  it('fills through the pool once the solver USDC inventory is drained, paying the live pool output exactly', async () => {
    const chain = d.services.base
    const usdc = chain.tokens[USDC]!
    const sender = d.services.sender(chain.key, 'solver')
    const all = await chain.client.readContract({
      address: usdc.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [d.services.accounts.solver],
    })
    const drain = await sender.send({
      to: usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [SINK, all] }),
      gas: 100_000n,
    })
    expect((await sender.wait(drain)).status).toBe('success')
    d.services.reads.invalidate()

    const u = await newUser(d, key, { [TOKEN_A]: '250' })
    const before = await snapshot(d, holders(u.address))
    expect(before['USDC solver']).toBe(0n)
    const expected = await poolOut(250n * e18)
    const r = await u.parx.redeem({ in: TOKEN_A, amount: '250' })
    expect(r.quote).toMatchObject({ deliverFrom: 'pool', solverUsdcInventory: 0, usdcOutBase: expected.toString() })
    expect(r.deliverFrom).toBe('pool')
    expect((await u.parx.waitForInclusion(r.hash)).swap?.outputAmount).toBe(expected.toString())

    const m = moved(before, await snapshot(d, holders(u.address)))
    delete m['ETH solver']
    expect(m).toEqual({
      'router nonce user': 1n,
      'PUSD permit nonce user': 1n,
      'PUSD user': -250n * e18,
      'USDC user': expected,
      'PUSD pool': 250n * e18,
      'USDC pool': -expected,
    })
  })
})

describe('redeem quote refusals (docs/swap-api.md "Redemptions": reduce size and re-quote)', () => {
  const quote = (amount: string) =>
    d.call('/api/base/redeem/quote', { query: { in: TOKEN_A, amount }, headers: { 'x-api-key': key } })
  const refusal = async (amount: string) => {
    const e = await quote(amount).then(
      () => undefined,
      (x: unknown) => x,
    )
    expect(e).toBeInstanceOf(ApiError)
    return e as ApiError
  }

  it('answers 400 AMOUNT_TOO_LARGE above hardMaxUsd', async () => {
    const e = await refusal('100000.000000000000000001')
    expect([e.status, e.code]).toEqual([400, 'AMOUNT_TOO_LARGE'])
    expect(e.message).toContain('reduce the size and re-quote')
  })

  it('answers 400 SLIPPAGE_TOO_HIGH beyond the budget, naming the size that fits now', async () => {
    const e = await refusal('99000')
    expect([e.status, e.code]).toEqual([400, 'SLIPPAGE_TOO_HIGH'])
    const fits = /reduce the size to at most (\d+\.\d{6}) and re-quote/.exec(e.message)?.[1]
    expect(fits).toBeDefined()
    const q = await quote(fits!)
    expect(q.slippageBps).toBe(400)
  })
})
