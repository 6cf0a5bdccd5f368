import { hashTypedData, parseEventLogs, parseUnits } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as PermitToken from './artifacts/PermitToken.js'
import * as RfqSwap from './artifacts/RfqSwap.js'
import type { Call } from './testing/chain.js'
import { type RfqFixture, setupRfq } from './testing/rfq.js'
import { rfqOrderTypes } from './testing/sign.js'

let f: RfqFixture
beforeAll(async () => {
  f = await setupRfq()
})
afterAll(async () => f?.tc.stop())

/** 123.456789 PUSD (18 decimals) at par is 123.456789 USDC (6 decimals). */
const PUSD_IN = parseUnits('123.456789', 18)
const USDC_OUT = 123_456_789n

describe('RfqSwap', () => {
  it('publishes its EIP-712 domain, solver, and the order digest wallets sign', async () => {
    const read = { address: f.router, abi: RfqSwap.abi } as const
    const [, name, version, chainId, verifyingContract] = await f.tc.client.readContract({
      ...read,
      functionName: 'eip712Domain',
    })
    expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual(f.routerDomain)
    expect(await f.tc.client.readContract({ ...read, functionName: 'solver' })).toBe(f.tc.accounts.solver.address)
    const { order } = await f.prepare({
      input: f.pusd,
      output: f.usdc,
      inputAmount: PUSD_IN,
      minOutputAmount: USDC_OUT,
    })
    const digest = hashTypedData({
      domain: f.routerDomain,
      types: rfqOrderTypes,
      primaryType: 'RfqOrder',
      message: order,
    })
    expect(await f.tc.client.readContract({ ...read, functionName: 'hashOrder', args: [order] })).toBe(digest)
  })

  it('swaps 18-decimal PUSD for 6-decimal USDC at par, exact to the unit', async () => {
    const { user, solver } = f.tc.accounts
    const before = await f.snapshot()
    const x = await f.prepare({ input: f.pusd, output: f.usdc, inputAmount: PUSD_IN, minOutputAmount: USDC_OUT })
    const receipt = await f.tc.send(solver, f.swapCall(x))
    const after = await f.snapshot()
    expect(after).toEqual({
      ...before,
      'PUSD user': before['PUSD user']! - PUSD_IN,
      'PUSD solver': before['PUSD solver']! + PUSD_IN,
      'USDC user': before['USDC user']! + USDC_OUT,
      'USDC solver': before['USDC solver']! - USDC_OUT,
      'router nonce user': before['router nonce user']! + 1n,
      'PUSD permit nonce user': before['PUSD permit nonce user']! + 1n,
    })
    const [ev] = parseEventLogs({ abi: RfqSwap.abi, logs: receipt.logs, eventName: 'Swapped' })
    const orderHash = await f.tc.client.readContract({
      address: f.router,
      abi: RfqSwap.abi,
      functionName: 'hashOrder',
      args: [x.order],
    })
    expect(ev?.args).toEqual({
      orderHash,
      user: user.address,
      inputToken: f.pusd.address,
      inputAmount: PUSD_IN,
      outputToken: f.usdc.address,
      outputAmount: USDC_OUT,
      nonce: x.order.nonce,
    })
  })

  type Rejection = [string, string, () => Promise<{ from: PrivateKeyAccount; call: Call }>]
  const base = () => ({ input: f.pusd, output: f.usdc, inputAmount: PUSD_IN, minOutputAmount: USDC_OUT })
  const bySolver = async (x: Parameters<RfqFixture['prepare']>[0]) => ({
    from: f.tc.accounts.solver,
    call: f.swapCall(await f.prepare(x)),
  })
  const rejections: Rejection[] = [
    [
      'an order signed by the wrong key',
      'BadSignature',
      () => bySolver({ ...base(), orderSigner: f.tc.accounts.other }),
    ],
    [
      'an order naming another user than its signer',
      'BadSignature',
      () => bySolver({ ...base(), overrides: { user: f.tc.accounts.other.address } }),
    ],
    [
      'a tampered input amount',
      'BadSignature',
      async () => {
        const x = await f.prepare(base())
        const call = f.swapCall({ ...x, order: { ...x.order, inputAmount: x.order.inputAmount * 2n } })
        return { from: f.tc.accounts.solver, call }
      },
    ],
    [
      'a passed deadline',
      'Expired',
      async () => bySolver({ ...base(), overrides: { deadline: (await f.tc.latestTimestamp()) - 1n } }),
    ],
    [
      'a stale nonce',
      'BadNonce',
      async () => {
        const stale = await f.routerNonce(f.tc.accounts.user.address)
        await f.tc.send(f.tc.accounts.solver, f.swapCall(await f.prepare(base())))
        return bySolver({ ...base(), overrides: { nonce: stale } })
      },
    ],
    [
      'a nonce from the future',
      'BadNonce',
      async () => bySolver({ ...base(), overrides: { nonce: (await f.routerNonce(f.tc.accounts.user.address)) + 1n } }),
    ],
    [
      'a replay of an executed order',
      'BadNonce',
      async () => {
        const call = f.swapCall(await f.prepare(base()))
        await f.tc.send(f.tc.accounts.solver, call)
        return { from: f.tc.accounts.solver, call }
      },
    ],
    [
      'a caller other than the solver',
      'NotSolver',
      async () => ({ from: f.tc.accounts.user, call: f.swapCall(await f.prepare(base())) }),
    ],
    [
      'an order naming another solver',
      'SolverMismatch',
      () => bySolver({ ...base(), overrides: { solver: f.tc.accounts.other.address } }),
    ],
    [
      'the same input and output token',
      'SameToken',
      () => bySolver({ ...base(), output: f.pusd, minOutputAmount: PUSD_IN }),
    ],
    [
      'a permit under the wrong domain and no allowance',
      'InsufficientAllowance',
      () => bySolver({ ...base(), permitDomain: { ...f.usdc.domain, verifyingContract: f.pusd.address } }),
    ],
  ]

  it.each(rejections)('rejects %s with %s and moves nothing', async (_what, error, build) => {
    const { from, call } = await build()
    const before = await f.snapshot()
    await f.tc.expectRevert(from, call, error)
    expect(await f.snapshot()).toEqual(before)
  })

  it('still swaps when someone front-ran the permit', async () => {
    const { user, other, solver } = f.tc.accounts
    const x = await f.prepare({
      input: f.usdc,
      output: f.pusd,
      inputAmount: 5_000_000n,
      minOutputAmount: parseUnits('5', 18),
    })
    const permitArgs = [user.address, f.router, x.order.inputAmount, x.order.deadline, x.v, x.r, x.s] as const
    await f.tc.send(other, { address: f.usdc.address, abi: PermitToken.abi, functionName: 'permit', args: permitArgs })
    const before = await f.snapshot()
    await f.tc.send(solver, f.swapCall(x))
    const after = await f.snapshot()
    expect(after['USDC user']).toBe(before['USDC user']! - 5_000_000n)
    expect(after['PUSD user']).toBe(before['PUSD user']! + parseUnits('5', 18))
    expect(after['router nonce user']).toBe(before['router nonce user']! + 1n)
    // The front-run permit was consumed by its submitter; the router's own attempt left it alone.
    expect(after['USDC permit nonce user']).toBe(before['USDC permit nonce user'])
    const allowance = await f.tc.client.readContract({
      address: f.usdc.address,
      abi: PermitToken.abi,
      functionName: 'allowance',
      args: [user.address, f.router],
    })
    expect(allowance).toBe(0n)
  })
})
