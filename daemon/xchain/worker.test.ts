import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { attestationStore } from './attestation-store.js'
import { orderStore, type NewOrder, type OrderStore } from './order-store.js'
import type { Rail, SourceRead } from './rail.js'
import { reservations } from './reservations.js'
import { solverSwitches } from './solver-switches.js'
import { solverWorker, type SolverWorker } from './worker.js'

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
  orderId, rail: 'sol-origin', user: 'user', inSymbol: 'PUSD', outSymbol: 'PUSD', inputToken: 'in', inputAmount: 1n,
  destChain: '0x01', outputToken: 'out', outputAmount: 1n, recipient: 'r', fillDeadline: 2e9, expires: 2e9, nonce: 1n,
  orderData: '{}', openRef: null, openValidUntil: null,
})

/** Every store call the worker makes, counted; the chain as a map of lock states (the rails' chain reads are covered by the e2e tests). */
function setup(opts: { pollMs: number; idleSweepMs: number }) {
  const real = orderStore(store)
  const calls: string[] = []
  const counted = Object.fromEntries(Object.entries(real).map(([name, fn]) => [name, (...args: unknown[]) => {
    calls.push(name)
    return (fn as (...a: unknown[]) => unknown)(...args)
  }])) as OrderStore
  const locks = new Map<string, SourceRead['state']>()
  const reads: string[] = []
  const rail = {
    readSource: async (o: { orderId: string }) => {
      reads.push(o.orderId)
      return { state: locks.get(o.orderId) ?? 'missing', now: Math.floor(Date.now() / 1000) }
    },
  } as unknown as Rail
  const worker: SolverWorker = solverWorker({
    rails: { 'sol-origin': rail }, orders: counted, attestations: attestationStore(store),
    reservations: reservations({ store, balance: async () => ({ balance: 10n, decimals: 0 }) }), switches: solverSwitches(store),
    attestors: [], log: pino({ level: 'silent' }), ...opts,
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
})
