import { type Address, encodeAbiParameters, type Hex, keccak256, parseEventLogs, parseUnits, zeroAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_B } from '../../src/networks/registry.js'
import * as OutputSettler from './artifacts/OutputSettler.js'
import * as PermitToken from './artifacts/PermitToken.js'
import type { Call } from './testing/chain.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './testing/tokens.js'
import { setupXchain, testKey, type XchainFixture } from './testing/xchain.js'

let f: XchainFixture
let junk: DeployedToken
beforeAll(async () => {
  f = await setupXchain()
  // Any token anyone can mint: what a griefer would "fill" someone else's order with.
  junk = await deployToken(f.tc, TOKEN_B)
  await mint(f.tc, junk, f.tc.accounts.other.address, parseUnits('1000', junk.decimals))
  await f.tc.send(f.tc.accounts.other, {
    address: junk.address,
    abi: PermitToken.abi,
    functionName: 'approve',
    args: [f.settler, 2n ** 256n - 1n],
  })
})
afterAll(async () => f?.tc.stop())

/** 25 PUSD (18 decimals on Base) delivered for a Solana-origin order. */
const AMOUNT = parseUnits('25', 18)
let seq = 0
const nextOrderId = () => keccak256(`0x${(++seq).toString(16).padStart(64, '0')}`)
const claimant: Hex = `0x${'5a'.repeat(32)}`

type Fill = { orderId: Hex; token: Address; amount: bigint; recipient: Address; claimant: Hex; fillDeadline: bigint }
const fillCall = (x: Fill): Call => ({
  address: f.settler,
  abi: OutputSettler.abi,
  functionName: 'fill',
  args: [x.orderId, x.token, x.amount, x.recipient, x.claimant, x.fillDeadline],
})
const recordOf = (x: Pick<Fill, 'orderId' | 'token' | 'amount' | 'recipient'>) =>
  f.tc.client.readContract({
    address: f.settler,
    abi: OutputSettler.abi,
    functionName: 'fillOf',
    args: [x.orderId, x.token, x.amount, x.recipient],
  })
async function aFill(overrides: Partial<Fill> = {}): Promise<Fill> {
  return {
    orderId: nextOrderId(),
    token: f.pusd.address,
    amount: AMOUNT,
    recipient: testKey(`recipient ${seq}`).address,
    claimant,
    fillDeadline: (await f.tc.latestTimestamp()) + 600n,
    ...overrides,
  }
}
const balances = async (x: Fill) => ({
  solver: await balanceOf(f.tc, x.token, f.tc.accounts.solver.address),
  other: await balanceOf(f.tc, x.token, f.tc.accounts.other.address),
  recipient: await balanceOf(f.tc, x.token, x.recipient),
})

describe('OutputSettler', () => {
  it('delivers the output from the solver to the recipient, records the fill and emits Filled', async () => {
    const { solver } = f.tc.accounts
    const x = await aFill()
    const before = await balances(x)
    expect((await recordOf(x)).filler).toBe(zeroAddress)
    const receipt = await f.tc.send(solver, fillCall(x))
    expect(await balances(x)).toEqual({
      ...before,
      solver: before.solver - AMOUNT,
      recipient: before.recipient + AMOUNT,
    })
    const { timestamp } = await f.tc.client.getBlock({ blockHash: receipt.blockHash })
    expect(await recordOf(x)).toEqual({ filler: solver.address, timestamp, claimant })
    const [ev] = parseEventLogs({ abi: OutputSettler.abi, logs: receipt.logs, eventName: 'Filled' })
    expect(ev?.args).toEqual({
      orderId: x.orderId,
      filler: solver.address,
      claimant,
      token: x.token,
      amount: AMOUNT,
      recipient: x.recipient,
    })
    const key = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'address' }, { type: 'uint256' }, { type: 'address' }],
        [x.orderId, x.token, x.amount, x.recipient],
      ),
    )
    expect(
      await f.tc.client.readContract({
        address: f.settler,
        abi: OutputSettler.abi,
        functionName: 'fillKey',
        args: [x.orderId, x.token, x.amount, x.recipient],
      }),
    ).toBe(key)
    // The record is found only under the output that was delivered.
    expect((await recordOf({ ...x, amount: AMOUNT - 1n })).filler).toBe(zeroAddress)
    expect((await recordOf({ ...x, recipient: solver.address })).filler).toBe(zeroAddress)
  })

  it("lets a bogus fill of someone else's order id with a worthless token not block the real fill", async () => {
    const { solver, other } = f.tc.accounts
    const real = await aFill()
    await f.tc.send(other, fillCall({ ...real, token: junk.address, amount: 1n, claimant: `0x${'66'.repeat(32)}` }))
    await f.tc.send(solver, fillCall(real))
    expect((await recordOf(real)).filler).toBe(solver.address)
  })

  type Rejection = [string, string, () => Promise<{ from: PrivateKeyAccount; fill: Fill }>]
  const rejections: Rejection[] = [
    [
      'a second fill of the same order and output',
      'AlreadyFilled',
      async () => {
        const x = await aFill()
        await f.tc.send(f.tc.accounts.solver, fillCall(x))
        return { from: f.tc.accounts.solver, fill: x }
      },
    ],
    [
      'a second fill by someone else crediting another claimant',
      'AlreadyFilled',
      async () => {
        const x = await aFill()
        await f.tc.send(f.tc.accounts.solver, fillCall(x))
        await mint(f.tc, f.pusd, f.tc.accounts.other.address, AMOUNT)
        await f.tc.send(f.tc.accounts.other, {
          address: f.pusd.address,
          abi: PermitToken.abi,
          functionName: 'approve',
          args: [f.settler, AMOUNT],
        })
        return { from: f.tc.accounts.other, fill: { ...x, claimant: `0x${'77'.repeat(32)}` } }
      },
    ],
    [
      'a fill after the fill deadline',
      'FillDeadlinePassed',
      async () => {
        const x = await aFill()
        await f.mineAt(Number(x.fillDeadline) + 1)
        return { from: f.tc.accounts.solver, fill: x }
      },
    ],
    [
      'a fill of nothing',
      'ZeroAmount',
      async () => ({ from: f.tc.accounts.solver, fill: await aFill({ amount: 0n }) }),
    ],
    [
      'a fill crediting no claimant',
      'InvalidClaimant',
      async () => ({ from: f.tc.accounts.solver, fill: await aFill({ claimant: `0x${'00'.repeat(32)}` }) }),
    ],
  ]

  it.each(rejections)('rejects %s with %s and moves nothing', async (_what, error, build) => {
    const { from, fill } = await build()
    const before = await balances(fill)
    const record = await recordOf(fill)
    await f.tc.expectRevert(from, fillCall(fill), error)
    expect(await balances(fill)).toEqual(before)
    expect(await recordOf(fill)).toEqual(record)
  })
})
