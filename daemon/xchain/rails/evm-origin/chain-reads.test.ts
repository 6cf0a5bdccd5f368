import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { setupXchain, type XchainFixture } from '../../../../contracts/evm/testing/xchain.js'
import { ESCROW_STATUS, escrowStatus, openedIndex, readLock } from './chain-reads.js'

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
    expect(await readLock(f.tc.client, f.escrow, id, false, order.fillDeadline)).toMatchObject({ state: 'missing', lockDead: false })
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
})
