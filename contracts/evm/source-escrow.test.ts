import { type Address, type Hex, keccak256, parseEventLogs, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type EvmOrder, evmOrderDelivery, evmParty } from '../xchain/statement.js'
import * as PermitToken from './artifacts/PermitToken.js'
import * as SourceEscrow from './artifacts/SourceEscrow.js'
import type { Call } from './testing/chain.js'
import { balanceOf, mint } from './testing/tokens.js'
import { ACCEPTS_ALL, REJECTS_ALL } from './testing/wallets.js'
import { INPUT, setupXchain, testKey, type XchainFixture } from './testing/xchain.js'

let f: XchainFixture
beforeAll(async () => {
  f = await setupXchain()
})
afterAll(async () => f?.tc.stop())

const read = (functionName: string, args: readonly unknown[] = []) =>
  f.tc.client.readContract({
    address: f.escrow,
    abi: SourceEscrow.abi,
    functionName,
    args,
  } as never) as Promise<unknown>

describe('SourceEscrow', () => {
  it('derives order ids exactly as statement.ts does and publishes its domain and verifier', async () => {
    const order = await f.makeOrder()
    expect(await read('orderId', [order])).toBe(f.orderId(order))
    const [, name, version, chainId, verifyingContract] = (await read('eip712Domain')) as [
      Hex,
      string,
      string,
      bigint,
      Hex,
    ]
    expect({ name, version, chainId: Number(chainId), verifyingContract }).toEqual({
      name: 'ParxSourceEscrow',
      version: '1',
      chainId: f.chainId,
      verifyingContract: f.escrow,
    })
    expect(await read('verifier')).toBe(f.verifier)
  })

  it('opens an order from its user: locks the input and emits Opened with the whole order', async () => {
    const { user } = f.tc.accounts
    const order = await f.makeOrder()
    expect(await f.status(order)).toBe('None')
    const before = await f.snapshot()
    const receipt = await f.openAsUser(order)
    expect(await f.snapshot()).toEqual({
      ...before,
      'USDC user': before['USDC user']! - INPUT,
      'USDC escrow': before['USDC escrow']! + INPUT,
    })
    expect(await f.status(order)).toBe('Deposited')
    const [ev] = parseEventLogs({ abi: SourceEscrow.abi, logs: receipt.logs, eventName: 'Opened' })
    expect(ev?.args).toEqual({ orderId: f.orderId(order), user: user.address, order })
  })

  it('opens gaslessly for a user holding no ETH, relayed by another account', async () => {
    const { other } = f.tc.accounts
    const poor = testKey('user without eth')
    await mint(f.tc, f.usdc, poor.address, INPUT)
    const order = await f.makeOrder({ user: poor.address })
    const call = f.calls.openFor(order, await f.signOrder(poor, order), await f.permitFor(poor, order))
    const relayerEth = await f.tc.client.getBalance({ address: other.address })
    const escrowBefore = await balanceOf(f.tc, f.usdc, f.escrow)
    expect(await f.tc.client.getBalance({ address: poor.address })).toBe(0n)

    const receipt = await f.tc.send(other, call)
    expect(await f.tc.client.getBalance({ address: poor.address })).toBe(0n)
    expect(await f.tc.client.getBalance({ address: other.address })).toBe(
      relayerEth - receipt.gasUsed * receipt.effectiveGasPrice,
    )
    expect(await balanceOf(f.tc, f.usdc, poor.address)).toBe(0n)
    expect(await balanceOf(f.tc, f.usdc, f.escrow)).toBe(escrowBefore + INPUT)
    expect(await f.status(order)).toBe('Deposited')
    const [ev] = parseEventLogs({ abi: SourceEscrow.abi, logs: receipt.logs, eventName: 'Opened' })
    expect(ev?.args.orderId).toBe(f.orderId(order))
  })

  it('still opens gaslessly when someone front-ran the permit', async () => {
    const { user, other, solver } = f.tc.accounts
    const order = await f.makeOrder()
    const permit = await f.permitFor(user, order)
    await f.tc.send(other, {
      address: f.usdc.address,
      abi: PermitToken.abi,
      functionName: 'permit',
      args: [user.address, f.escrow, order.inputAmount, permit.deadline, permit.v, permit.r, permit.s],
    })
    const before = await f.snapshot()
    await f.tc.send(solver, f.calls.openFor(order, await f.signOrder(user, order), permit))
    expect(await f.snapshot()).toEqual({
      ...before,
      'USDC user': before['USDC user']! - INPUT,
      'USDC escrow': before['USDC escrow']! + INPUT,
    })
    expect(await f.status(order)).toBe('Deposited')
  })

  it('opens gaslessly for an ERC-1271 wallet that approves the order, and not for one that refuses', async () => {
    const { solver } = f.tc.accounts
    const wallet = (label: string) => `0x${keccak256(toHex(label)).slice(26)}` as Address
    const accepting = wallet('parx xchain accepting wallet')
    const rejecting = wallet('parx xchain rejecting wallet')
    await f.tc.testClient.setCode({ address: accepting, bytecode: ACCEPTS_ALL })
    await f.tc.testClient.setCode({ address: rejecting, bytecode: REJECTS_ALL })
    // The wallets answer for the permit too (PermitToken asks ERC-1271), so any v, r, s will do.
    const anyPermit = {
      v: 27,
      r: `0x${'00'.repeat(32)}` as Hex,
      s: `0x${'00'.repeat(32)}` as Hex,
      signature: '0x' as Hex,
    }
    for (const w of [accepting, rejecting]) await mint(f.tc, f.usdc, w, INPUT)
    const good = await f.makeOrder({ user: accepting })
    await f.tc.send(solver, f.calls.openFor(good, '0x1234', { ...anyPermit, deadline: BigInt(good.fillDeadline) }))
    expect(await f.status(good)).toBe('Deposited')
    expect(await balanceOf(f.tc, f.usdc, accepting)).toBe(0n)
    const bad = await f.makeOrder({ user: rejecting })
    await f.tc.expectRevert(
      solver,
      f.calls.openFor(bad, '0x1234', { ...anyPermit, deadline: BigInt(bad.fillDeadline) }),
      'BadSignature',
    )
    expect(await balanceOf(f.tc, f.usdc, rejecting)).toBe(INPUT)
  })

  it('pays the input to the attested solver on a 2-of-3 quorum, whoever submits, exactly once', async () => {
    const { solver, other } = f.tc.accounts
    const order = await f.makeOrder()
    await f.openAsUser(order)
    const sigs = await f.quorum(order)
    const before = await f.snapshot()
    const receipt = await f.tc.send(other, f.calls.claim(order, evmParty(solver.address), sigs))
    expect(await f.snapshot()).toEqual({
      ...before,
      'USDC solver': before['USDC solver']! + INPUT,
      'USDC escrow': before['USDC escrow']! - INPUT,
    })
    expect(await f.status(order)).toBe('Claimed')
    const [ev] = parseEventLogs({ abi: SourceEscrow.abi, logs: receipt.logs, eventName: 'Claimed' })
    expect(ev?.args).toEqual({
      orderId: f.orderId(order),
      solver: solver.address,
      inputToken: f.usdc.address,
      amount: INPUT,
    })

    // Double claim, with the very same attestations, and a refund after the claim.
    await f.tc.expectRevert(other, f.calls.claim(order, evmParty(solver.address), sigs), 'NotDeposited')
    await f.mineAt(order.expires + 1)
    await f.tc.expectRevert(other, f.calls.refund(order), 'NotDeposited')
    expect(await f.snapshot()).toEqual({
      ...before,
      'USDC solver': before['USDC solver']! + INPUT,
      'USDC escrow': before['USDC escrow']! - INPUT,
    })
  })

  it('accepts all three attestations, in any order', async () => {
    const { solver } = f.tc.accounts
    const order = await f.makeOrder()
    await f.openAsUser(order)
    const sigs = await f.attest(
      [f.attestors[2]!, f.attestors[0]!, f.attestors[1]!],
      evmOrderDelivery(order, f.orderId(order), evmParty(solver.address)),
    )
    await f.tc.send(solver, f.calls.claim(order, evmParty(solver.address), sigs))
    expect(await f.status(order)).toBe('Claimed')
  })

  it('claims in the last second before expiry, and refuses a refund in that same second', async () => {
    const { solver, other } = f.tc.accounts
    const claimed = await f.makeOrder()
    const locked = await f.makeOrder({ expires: claimed.expires + 1, fillDeadline: claimed.fillDeadline })
    await f.openAsUser(claimed)
    await f.openAsUser(locked)
    const sigs = await f.quorum(claimed)
    // A set timestamp cannot be simulated ahead, so these two go straight to the chain.
    await f.tc.testClient.setNextBlockTimestamp({ timestamp: BigInt(claimed.expires) })
    expect((await f.tc.sendRaw(other, f.calls.claim(claimed, evmParty(solver.address), sigs))).status).toBe('success')
    await f.tc.testClient.setNextBlockTimestamp({ timestamp: BigInt(locked.expires) })
    expect((await f.tc.sendRaw(other, f.calls.refund(locked))).status).toBe('reverted')
    expect(await f.status(claimed)).toBe('Claimed')
    expect(await f.status(locked)).toBe('Deposited')
  })

  it('refunds an expired order to its user whoever calls, then refuses a claim and a second refund', async () => {
    const { user, solver, other } = f.tc.accounts
    const order = await f.makeOrder()
    await f.openAsUser(order)
    const sigs = await f.quorum(order)
    await f.mineAt(order.expires + 1)
    const before = await f.snapshot()
    // The solver calling refund cannot redirect it: the money goes to order.user.
    const receipt = await f.tc.send(solver, f.calls.refund(order))
    const after = {
      ...before,
      'USDC user': before['USDC user']! + INPUT,
      'USDC escrow': before['USDC escrow']! - INPUT,
    }
    expect(await f.snapshot()).toEqual(after)
    expect(await f.status(order)).toBe('Refunded')
    const [ev] = parseEventLogs({ abi: SourceEscrow.abi, logs: receipt.logs, eventName: 'Refunded' })
    expect(ev?.args).toEqual({
      orderId: f.orderId(order),
      user: user.address,
      inputToken: f.usdc.address,
      amount: INPUT,
    })

    await f.tc.expectRevert(other, f.calls.claim(order, evmParty(solver.address), sigs), 'NotDeposited')
    await f.tc.expectRevert(other, f.calls.refund(order), 'NotDeposited')
    expect(await f.snapshot()).toEqual(after)
  })

  type Attempt = { from: PrivateKeyAccount; call: Call; order: EvmOrder }
  type Rejection = [string, string, () => Promise<Attempt>]
  const acct = () => f.tc.accounts
  /** An order of the user, opened directly. */
  const opened = async (overrides: Partial<EvmOrder> = {}) => {
    const order = await f.makeOrder(overrides)
    await f.openAsUser(order)
    return order
  }
  const solverParty = () => evmParty(acct().solver.address)
  /** A claim of a freshly opened order with attestations of `signers` over `delivery(order)`. */
  const claimWith = async (
    signers: () => PrivateKeyAccount[],
    tweak: (o: EvmOrder, id: Hex) => ReturnType<typeof evmOrderDelivery>,
  ) => {
    const order = await opened()
    const sigs = await f.attest(signers(), tweak(order, f.orderId(order)))
    return { from: acct().solver, call: f.calls.claim(order, solverParty(), sigs), order }
  }
  const two = () => f.attestors.slice(0, 2)

  const rejections: Rejection[] = [
    // open
    [
      "an open of someone else's order",
      'NotUser',
      async () => {
        const order = await f.makeOrder()
        await f.tc.send(acct().user, f.calls.approve())
        return { from: acct().other, call: f.calls.open(order), order }
      },
    ],
    [
      'an order whose fillDeadline is after expires',
      'FillDeadlineAfterExpiry',
      async () => {
        const o = await f.makeOrder()
        const order = { ...o, fillDeadline: o.expires + 1 }
        return { from: acct().user, call: f.calls.open(order), order }
      },
    ],
    [
      'an order whose fillDeadline has passed',
      'FillDeadlinePassed',
      async () => {
        const now = Number(await f.tc.latestTimestamp())
        const order = await f.makeOrder({ fillDeadline: now - 1 })
        return { from: acct().user, call: f.calls.open(order), order }
      },
    ],
    [
      'an order of zero input',
      'ZeroAmount',
      async () => {
        const order = await f.makeOrder({ inputAmount: 0n })
        return { from: acct().user, call: f.calls.open(order), order }
      },
    ],
    [
      'a second open of the same order',
      'OrderAlreadyOpened',
      async () => {
        const order = await opened()
        await f.tc.send(acct().user, f.calls.approve())
        return { from: acct().user, call: f.calls.open(order), order }
      },
    ],
    // openFor
    [
      'a replayed gasless signature',
      'OrderAlreadyOpened',
      async () => {
        const order = await f.makeOrder()
        const call = f.calls.openFor(
          order,
          await f.signOrder(acct().user, order),
          await f.permitFor(acct().user, order),
        )
        await f.tc.send(acct().solver, call)
        await f.tc.send(acct().user, f.calls.approve())
        return { from: acct().solver, call, order }
      },
    ],
    [
      'an expired gasless signature (fillDeadline passed)',
      'FillDeadlinePassed',
      async () => {
        const order = await f.makeOrder()
        const call = f.calls.openFor(
          order,
          await f.signOrder(acct().user, order),
          await f.permitFor(acct().user, order),
        )
        await f.mineAt(order.fillDeadline + 1)
        return { from: acct().solver, call, order }
      },
    ],
    [
      'a gasless order signed by someone else',
      'BadSignature',
      async () => {
        const order = await f.makeOrder()
        return {
          from: acct().solver,
          call: f.calls.openFor(order, await f.signOrder(acct().other, order), await f.permitFor(acct().user, order)),
          order,
        }
      },
    ],
    [
      'a gasless order relayed with a raised input amount',
      'BadSignature',
      async () => {
        const order = await f.makeOrder()
        const sig = await f.signOrder(acct().user, order)
        const raised = { ...order, inputAmount: order.inputAmount * 2n }
        return {
          from: acct().solver,
          call: f.calls.openFor(raised, sig, await f.permitFor(acct().user, raised)),
          order: raised,
        }
      },
    ],
    [
      'a gasless order whose permit is for less and no allowance',
      'InsufficientAllowance',
      async () => {
        const order = await f.makeOrder()
        await f.tc.send(acct().user, f.calls.approve(f.usdc, 0n))
        const permit = await f.permitFor(acct().user, { ...order, inputAmount: order.inputAmount - 1n })
        return {
          from: acct().solver,
          call: f.calls.openFor(order, await f.signOrder(acct().user, order), permit),
          order,
        }
      },
    ],
    // claim
    [
      'a claim with one signature',
      'NotEnoughSignatures',
      () =>
        claimWith(
          () => f.attestors.slice(0, 1),
          (o, id) => evmOrderDelivery(o, id, solverParty()),
        ),
    ],
    [
      'a claim with two signatures of the same attestor',
      'DuplicateSigner',
      () =>
        claimWith(
          () => [f.attestors[0]!, f.attestors[0]!],
          (o, id) => evmOrderDelivery(o, id, solverParty()),
        ),
    ],
    [
      'a claim with a non-attestor signature',
      'UnknownSigner',
      () =>
        claimWith(
          () => [f.attestors[0]!, acct().other],
          (o, id) => evmOrderDelivery(o, id, solverParty()),
        ),
    ],
    [
      'a claim with a forged signature',
      'UnknownSigner',
      async () => {
        const order = await opened()
        const [good, forged] = await f.quorum(order)
        // The attestor's signature with one byte of s flipped: well-formed, but someone else's.
        const flipped =
          `${forged!.slice(0, 100)}${(parseInt(forged!.slice(100, 102), 16) ^ 1).toString(16).padStart(2, '0')}${forged!.slice(102)}` as Hex
        return { from: acct().solver, call: f.calls.claim(order, solverParty(), [good!, flipped]), order }
      },
    ],
    [
      'a claim with attestations of another order',
      'UnknownSigner',
      async () => {
        const other = await opened()
        const order = await opened()
        return { from: acct().solver, call: f.calls.claim(order, solverParty(), await f.quorum(other)), order }
      },
    ],
    [
      'a claim with attestations of another amount',
      'UnknownSigner',
      () => claimWith(two, (o, id) => ({ ...evmOrderDelivery(o, id, solverParty()), amount: o.outputAmount - 1n })),
    ],
    [
      'a claim with attestations of another recipient',
      'UnknownSigner',
      () =>
        claimWith(two, (o, id) => ({
          ...evmOrderDelivery(o, id, solverParty()),
          recipient: evmParty(acct().other.address),
        })),
    ],
    [
      'a claim with attestations of another destination chain',
      'UnknownSigner',
      () =>
        claimWith(two, (o, id) => ({ ...evmOrderDelivery(o, id, solverParty()), destChain: `0x${'00'.repeat(31)}01` })),
    ],
    [
      'a claim by another solver with attestations of the delivering one',
      'UnknownSigner',
      async () => {
        const order = await opened()
        const sigs = await f.quorum(order, solverParty())
        return { from: acct().other, call: f.calls.claim(order, evmParty(acct().other.address), sigs), order }
      },
    ],
    [
      'a claim naming a solver that is not an EVM address',
      'InvalidSolver',
      async () => {
        const order = await opened()
        const party = `0x01${solverParty().slice(4)}` as Hex
        return { from: acct().solver, call: f.calls.claim(order, party, await f.quorum(order, party)), order }
      },
    ],
    [
      'a claim of an order never opened',
      'NotDeposited',
      async () => {
        const order = await f.makeOrder()
        return { from: acct().solver, call: f.calls.claim(order, solverParty(), await f.quorum(order)), order }
      },
    ],
    [
      'a claim after expires',
      'OrderExpired',
      async () => {
        const order = await opened()
        const sigs = await f.quorum(order)
        await f.mineAt(order.expires + 1)
        return { from: acct().solver, call: f.calls.claim(order, solverParty(), sigs), order }
      },
    ],
    // refund
    [
      'a refund before expiry',
      'NotExpired',
      async () => {
        const order = await opened()
        return { from: acct().user, call: f.calls.refund(order), order }
      },
    ],
    [
      'a refund of an order never opened',
      'NotDeposited',
      async () => {
        const order = await f.makeOrder()
        await f.mineAt(order.expires + 1)
        return { from: acct().user, call: f.calls.refund(order), order }
      },
    ],
  ]

  it.each(rejections)('rejects %s with %s and moves nothing', async (_what, error, build) => {
    const { from, call, order } = await build()
    const before = await f.snapshot()
    const status = await f.status(order)
    await f.tc.expectRevert(from, call, error)
    expect(await f.snapshot()).toEqual(before)
    expect(await f.status(order)).toBe(status)
  })
})
