import type { PublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Multicall3 from '../../../../contracts/evm/artifacts/Multicall3.js'
import { MULTICALL3 } from '../../../../contracts/evm/testing/chain.js'
import { setupXchain, type XchainFixture } from '../../../../contracts/evm/testing/xchain.js'
import {
  baseNow,
  batchedLockReads,
  clockThenStatus,
  ESCROW_STATUS,
  escrowStatus,
  openedIndex,
  readLock,
  sharedRead,
} from './chain-reads.js'

let f: XchainFixture
beforeAll(async () => {
  f = await setupXchain()
})
afterAll(async () => f?.tc.stop())

describe('evm-origin chain reads', () => {
  it('the Opened index finds each opened order as the escrow emitted it, scanning only new blocks on later lookups', async () => {
    const find = openedIndex(f.tc.client, f.escrow, { chunk: 3n })
    const first = await f.makeOrder()
    await f.openAsUser(first)
    expect(await find(f.orderId(first))).toEqual(first)
    const second = await f.makeOrder()
    await f.openAsUser(second)
    expect(await find(f.orderId(second))).toEqual(second)
    expect(await find(`0x${'ab'.repeat(32)}`)).toBeUndefined()
  })

  it('reads the lock: missing, dead once Base reaches fillDeadline unopened, open, refunded', async () => {
    const order = await f.makeOrder()
    const id = f.orderId(order)
    expect(await readLock(f.tc.client, f.escrow, id, false, order.fillDeadline)).toMatchObject({
      state: 'missing',
      lockDead: false,
    })
    await f.openAsUser(order)
    expect(await escrowStatus(f.tc.client, f.escrow, id)).toBe(ESCROW_STATUS.deposited)
    expect((await readLock(f.tc.client, f.escrow, id, false, order.fillDeadline)).state).toBe('open')
    const late = await f.makeOrder()
    await f.mineAt(late.fillDeadline)
    const dead = await readLock(f.tc.client, f.escrow, f.orderId(late), false, late.fillDeadline)
    expect(dead).toMatchObject({ state: 'missing', lockDead: true, now: late.fillDeadline })
    expect(dead.lockDeadReason).toMatch(/fillDeadline/)
    await f.mineAt(order.expires + 1)
    await f.tc.send(f.tc.accounts.other, f.calls.refund(order))
    expect((await readLock(f.tc.client, f.escrow, id, false, order.fillDeadline)).state).toBe('refunded')
  })

  it("Base's clock read by orders stepped together: one block read for those asking at once, a new one after, never a time from before a block mined since", async () => {
    let blockReads = 0
    const clock = sharedRead(() => {
      blockReads++
      return baseNow(f.tc.client, false)
    })
    const order = await f.makeOrder()
    const ids = [f.orderId(order), `0x${'cd'.repeat(32)}` as const]
    const read = clockThenStatus(f.tc.client, false, clock)
    const together = await Promise.all(
      ids.map((id) => readLock(f.tc.client, f.escrow, id, false, order.fillDeadline, read)),
    )
    expect(blockReads).toBe(1)
    expect(together.map((r) => r.state)).toEqual(['missing', 'missing'])
    await f.mineAt(order.fillDeadline)
    const after = await readLock(f.tc.client, f.escrow, ids[0]!, false, order.fillDeadline, read)
    expect(blockReads).toBe(2)
    expect(after).toMatchObject({ state: 'missing', lockDead: true, now: order.fillDeadline })
  })

  it("the statuses and Base's clock asked at once come in one eth_call, each as escrowStatus and baseNow read them alone; a later ask sees a lock opened since, and a block mined at fillDeadline", async () => {
    await f.tc.client.request({
      method: 'anvil_setCode' as never,
      params: [MULTICALL3, Multicall3.deployedBytecode] as never,
    })
    let ethCalls = 0
    const counting = {
      call: (a: Parameters<PublicClient['call']>[0]) => (ethCalls++, f.tc.client.call(a)),
    } as unknown as PublicClient
    const lock = batchedLockReads(counting, MULTICALL3, false)
    const opened = await f.makeOrder()
    await f.openAsUser(opened)
    const waiting = await f.makeOrder()
    const ids = [f.orderId(opened), f.orderId(waiting), `0x${'ef'.repeat(32)}` as const]
    const alone = await Promise.all(
      ids.map(async (id) => ({
        now: await baseNow(f.tc.client, false),
        status: await escrowStatus(f.tc.client, f.escrow, id),
      })),
    )
    const before = ethCalls
    expect(await Promise.all(ids.map((id) => lock(f.escrow, id)))).toEqual(alone)
    expect(alone.map((r) => r.status)).toEqual([ESCROW_STATUS.deposited, ESCROW_STATUS.none, ESCROW_STATUS.none])
    expect(ethCalls - before).toBe(1)
    await f.openAsUser(waiting)
    expect((await readLock(f.tc.client, f.escrow, ids[1]!, false, waiting.fillDeadline, lock)).state).toBe('open')
    expect(ethCalls - before).toBe(2)
    const late = await f.makeOrder()
    await f.mineAt(late.fillDeadline)
    expect(await readLock(f.tc.client, f.escrow, f.orderId(late), false, late.fillDeadline, lock)).toMatchObject({
      state: 'missing',
      lockDead: true,
      now: late.fillDeadline,
    })
  })
})
