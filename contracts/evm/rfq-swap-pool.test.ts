import { type Address, parseEventLogs, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_B } from '../../src/networks/registry.js'
import * as RfqSwap from './artifacts/RfqSwap.js'
import * as UniswapV2Factory from './artifacts/UniswapV2Factory.js'
import * as UniswapV2Pair from './artifacts/UniswapV2Pair.js'
import { type RfqFixture, setupRfq } from './testing/rfq.js'
import { type DeployedToken, deployToken, mint } from './testing/tokens.js'

let f: RfqFixture
let pair: Address
let xusdPair: Address

/** A real v2 pool: factory from the committed artifact, createPair, then the first liquidity mint. */
async function createPool(a: DeployedToken, b: DeployedToken, factory: Address): Promise<Address> {
  const { tc } = f
  await tc.send(tc.accounts.deployer, {
    address: factory,
    abi: UniswapV2Factory.abi,
    functionName: 'createPair',
    args: [a.address, b.address],
  })
  const p = await tc.client.readContract({
    address: factory,
    abi: UniswapV2Factory.abi,
    functionName: 'getPair',
    args: [a.address, b.address],
  })
  for (const t of [a, b]) await mint(tc, t, p, parseUnits('1000000', t.decimals))
  await tc.send(tc.accounts.deployer, {
    address: p,
    abi: UniswapV2Pair.abi,
    functionName: 'mint',
    args: [tc.accounts.deployer.address],
  })
  return p
}

beforeAll(async () => {
  f = await setupRfq()
  const factory = await f.tc.deploy(UniswapV2Factory.abi, UniswapV2Factory.bytecode, [f.tc.accounts.deployer.address])
  pair = await createPool(f.pusd, f.usdc, factory)
  xusdPair = await createPool(await deployToken(f.tc, TOKEN_B), f.usdc, factory)
})
afterAll(async () => f?.tc.stop())

/** Uniswap v2's getAmountOut (0.3% fee), from the pool's live reserves. */
async function quote(input: DeployedToken, amountIn: bigint): Promise<bigint> {
  const read = { address: pair, abi: UniswapV2Pair.abi } as const
  const [r0, r1] = await f.tc.client.readContract({ ...read, functionName: 'getReserves' })
  const token0 = await f.tc.client.readContract({ ...read, functionName: 'token0' })
  const [reserveIn, reserveOut] = token0 === input.address ? [r0, r1] : [r1, r0]
  return (amountIn * 997n * reserveOut) / (reserveIn * 1000n + amountIn * 997n)
}

describe('RfqSwap.swapViaPool', () => {
  it.each(['PUSD -> USDC', 'USDC -> PUSD'])(
    '%s delivers the v2 output to the unit, solver inventory untouched',
    async (route) => {
      const [input, output] = route.startsWith('PUSD') ? [f.pusd, f.usdc] : [f.usdc, f.pusd]
      const inputAmount = parseUnits('250', input.decimals)
      const expected = await quote(input, inputAmount)
      const before = await f.snapshot()
      const x = await f.prepare({ input, output, inputAmount, minOutputAmount: expected })
      const receipt = await f.tc.send(f.tc.accounts.solver, f.swapCall(x, pair))
      expect(await f.snapshot()).toEqual({
        ...before,
        [`${input.symbol} user`]: before[`${input.symbol} user`]! - inputAmount,
        [`${output.symbol} user`]: before[`${output.symbol} user`]! + expected,
        'router nonce user': before['router nonce user']! + 1n,
        [`${input.symbol} permit nonce user`]: before[`${input.symbol} permit nonce user`]! + 1n,
      })
      const [ev] = parseEventLogs({ abi: RfqSwap.abi, logs: receipt.logs, eventName: 'Swapped' })
      expect(ev?.args.outputAmount).toBe(expected)
      expect(ev?.args.inputAmount).toBe(inputAmount)
    },
  )

  it('reverts InsufficientOutput when the pool pays less than minOutputAmount, moving nothing', async () => {
    const inputAmount = parseUnits('100', 18)
    const x = await f.prepare({
      input: f.pusd,
      output: f.usdc,
      inputAmount,
      minOutputAmount: (await quote(f.pusd, inputAmount)) + 1n,
    })
    const before = await f.snapshot()
    await f.tc.expectRevert(f.tc.accounts.solver, f.swapCall(x, pair), 'InsufficientOutput')
    expect(await f.snapshot()).toEqual(before)
  })

  it('reverts PairMismatch for a pool of other tokens', async () => {
    const x = await f.prepare({ input: f.pusd, output: f.usdc, inputAmount: parseUnits('1', 18), minOutputAmount: 1n })
    const before = await f.snapshot()
    await f.tc.expectRevert(f.tc.accounts.solver, f.swapCall(x, xusdPair), 'PairMismatch')
    expect(await f.snapshot()).toEqual(before)
  })

  it('applies the same order checks as swap', async () => {
    const { user, other, solver } = f.tc.accounts
    const order = { input: f.pusd, output: f.usdc, inputAmount: parseUnits('1', 18), minOutputAmount: 1n }
    const before = await f.snapshot()
    await f.tc.expectRevert(user, f.swapCall(await f.prepare(order), pair), 'NotSolver')
    await f.tc.expectRevert(solver, f.swapCall(await f.prepare({ ...order, orderSigner: other }), pair), 'BadSignature')
    const expired = { deadline: (await f.tc.latestTimestamp()) - 1n }
    await f.tc.expectRevert(solver, f.swapCall(await f.prepare({ ...order, overrides: expired }), pair), 'Expired')
    expect(await f.snapshot()).toEqual(before)
  })
})
