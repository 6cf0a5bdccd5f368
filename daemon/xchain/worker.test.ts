import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { attestationStore } from './attestation-store.js'
import { type NewOrder, type OrderStore, orderStore } from './order-store.js'
import type { Rail, SourceRead } from './rail.js'
import { reservations } from './reservations.js'
import { solverSwitches } from './solver-switches.js'
import { type SolverWorker, solverWorker } from './worker.js'

let store: Store
let stopDuty: (() => Promise<void>) | undefined
beforeEach(async () => {
  store = await openTestStore()
})
afterEach(async () => {
  await stopDuty?.()
  stopDuty = undefined
  await store.close()
})

const order = (orderId: `0x${string}`): NewOrder => ({
  orderId,
  rail: 'sol-origin',
  user: 'user',
  inSymbol: 'PUSD',
  outSymbol: 'PUSD',
  inputToken: 'in',
  inputAmount: 1n,
  destChain: '0x01',
  outputToken: 'out',
  outputAmount: 1n,
  recipient: 'r',
  fillDeadline: 2e9,
  expires: 2e9,
  nonce: 1n,
  orderData: '{}',
  openRef: null,
  openValidUntil: null,
})

/** Every store call the worker makes, counted; the chain as a map of lock states (the rails' chain reads are covered by the e2e tests). */
function setup(opts: { pollMs: number; idleSweepMs: number }, gate?: () => Promise<void>) {
  const real = orderStore(store)
  const calls: string[] = []
  const counted = Object.fromEntries(
    Object.entries(real).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls.push(name)
        return (fn as (...a: unknown[]) => unknown)(...args)
      },
    ]),
  ) as OrderStore
  const locks = new Map<string, SourceRead['state']>()
  const reads: string[] = []
  const rail = {
    readSource: async (o: { orderId: string }) => {
      reads.push(o.orderId)
      const state = locks.get(o.orderId) ?? 'missing'
      await gate?.()
      return { state, now: Math.floor(Date.now() / 1000) }
    },
  } as unknown as Rail
  const worker: SolverWorker = solverWorker({
    rails: { 'sol-origin': rail },
    orders: counted,
    attestations: attestationStore(store),
    reservations: reservations({ store, balance: async () => ({ balance: 10n, decimals: 0 }) }),
    switches: solverSwitches(store),
    attestors: [],
    log: pino({ level: 'silent' }),
    ...opts,
  })
  return { worker, orders: real, calls, locks, reads }
}

const until = async (what: () => boolean) => {
  for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 20))
  expect(what()).toBe(true)
}

describe('the solver worker, idle and woken', () => {
  it('reads nothing from the store while no order is open, and picks up a new one when woken', async () => {
    // A sweep far longer than this test: anything it sees happens because of the wake.
    const { worker, orders, calls, reads } = setup({ pollMs: 20, idleSweepMs: 600_000 })
    stopDuty = await worker.duty()
    await until(() => calls.includes('active'))
    const afterFirstPass = calls.length
    // Long enough for fifteen 20 ms polls.
    await new Promise((r) => setTimeout(r, 300))
    expect(calls.slice(afterFirstPass)).toEqual([])

    await orders.insert(order('0xa1'))
    worker.wake()
    await until(() => reads.includes('0xa1'))
  })

  it('looks at open orders every pollMs, and stops reading once none is open', async () => {
    const { worker, orders, calls, locks, reads } = setup({ pollMs: 20, idleSweepMs: 600_000 })
    await orders.insert(order('0xb1'))
    stopDuty = await worker.duty()
    // Its lock has not landed: read again and again without any wake.
    await until(() => reads.filter((id) => id === '0xb1').length >= 3)
    locks.set('0xb1', 'claimed')
    await until(() => reads.filter((id) => id === '0xb1').length >= 4)
    let stage: string | undefined
    for (let i = 0; i < 200 && stage !== 'claimed'; i++) {
      stage = (await orders.get('0xb1'))?.stage
      if (stage !== 'claimed') await new Promise((r) => setTimeout(r, 20))
    }
    expect(stage).toBe('claimed')
    // The pass that found nothing open is the last one until a wake.
    await new Promise((r) => setTimeout(r, 100))
    const quiet = calls.length
    await new Promise((r) => setTimeout(r, 300))
    expect(calls.slice(quiet)).toEqual([])
  })

  it('a wake naming an order steps that order now, without a pass over every open order', async () => {
    // Polls far apart: whatever is read after the first pass comes from the wake.
    const { worker, orders, calls, reads } = setup({ pollMs: 600_000, idleSweepMs: 600_000 })
    await orders.insert(order('0xc1'))
    stopDuty = await worker.duty()
    await until(() => reads.includes('0xc1'))
    await new Promise((r) => setTimeout(r, 50))
    const passes = calls.filter((c) => c === 'active').length
    await orders.insert(order('0xc2'))
    worker.wake('0xc2')
    await until(() => reads.includes('0xc2'))
    await new Promise((r) => setTimeout(r, 50))
    // 0xc1 (still waiting for its lock) was not read again, and no pass ran.
    expect(reads.filter((id) => id === '0xc1')).toHaveLength(1)
    expect(calls.filter((c) => c === 'active')).toHaveLength(passes)
  })

  it("a step asked for while the same order's step is running runs again after it", async () => {
    let release: () => void = () => {}
    let held = true
    const { worker, orders, locks } = setup({ pollMs: 600_000, idleSweepMs: 600_000 }, () =>
      held
        ? new Promise<void>((r) => {
            release = r
          })
        : Promise.resolve(),
    )
    await orders.insert(order('0xd1'))
    const first = worker.step('0xd1')
    await new Promise((r) => setTimeout(r, 20))
    // The lock landed after the running step read it as missing, and someone asks again (a relayed lock's wake).
    locks.set('0xd1', 'claimed')
    const second = worker.step('0xd1')
    const third = worker.step('0xd1')
    held = false
    release()
    expect((await first)?.stage).toBe('built')
    expect((await second)?.stage).toBe('claimed')
    expect((await third)?.stage).toBe('claimed')
  })
})
