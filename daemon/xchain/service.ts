import { BaseError } from '../../src/errors/index.js'
import type {
  HeartbeatResponse,
  OperatorOrderResult,
  ReleaseResult,
  ReserveResult,
  XchainRail,
  XchainStatusResponse,
} from '../../src/sdk/xchain/wire.js'
import type { Attestor } from './attestors/attestor.js'
import type { OrderStore, XOrder } from './order-store.js'
import type { Rail } from './rail.js'
import type { BalanceReader, Reservations } from './reservations.js'
import type { Paused, SolverSwitches } from './solver-switches.js'
import { publicStatus } from './stages.js'
import { xchainStatus } from './status.js'
import type { SolverWorker } from './worker.js'

/** The cross-chain surface (daemon/services.ts): what the xchain routes are handed, and nothing else. */
export type XchainService = {
  /** Rails whose routes this daemon serves. */
  rails: XchainRail[]
  build(rail: XchainRail, req: unknown): Promise<unknown>
  /** A lock the solver relays for the user (evm-origin's gasless open), for an order this service built. */
  submit(rail: XchainRail, orderId: `0x${string}`, body: unknown): Promise<unknown>
  status(orderId: `0x${string}`, rail: XchainRail): Promise<XchainStatusResponse>
  settle(rail: XchainRail, orderId: `0x${string}`): Promise<OperatorOrderResult>
  refund(rail: XchainRail, orderId: `0x${string}`): Promise<OperatorOrderResult>
  heartbeat(): Promise<HeartbeatResponse>
  pause(p: Paused): Promise<Paused>
  resume(): Promise<Paused>
  reserve(p: {
    network: string
    token: string
    amount: bigint
    ref: string
    ttlSeconds: number
  }): Promise<ReserveResult>
  release(id: string): Promise<ReleaseResult>
}

export type XchainServiceDeps = {
  rails: Partial<Record<XchainRail, Rail>>
  orders: OrderStore
  reservations: Reservations
  switches: SolverSwitches
  attestors: Attestor[]
  worker: SolverWorker
  balance: BalanceReader
  /** Whether this process runs the worker duties now: only the leader moves orders. */
  leading(): boolean
  /**
   * An order was built or its lock relayed here: the leader's worker (this process's or another replica's) looks now.
   */
  wake(orderId: string): void
}

export function xchainService(d: XchainServiceDeps): XchainService {
  const railOf = (rail: XchainRail): Rail => {
    const r = d.rails[rail]
    if (!r) throw new BaseError('NOT_FOUND', `the ${rail} rail is not served by this service`)
    return r
  }
  const ownOrder = async (rail: XchainRail, orderId: `0x${string}`): Promise<XOrder> => {
    railOf(rail)
    const o = await d.orders.get(orderId)
    if (!o) throw new BaseError('NOT_FOUND', `no cross-chain order ${orderId} was built by this service`)
    if (o.rail !== rail)
      throw new BaseError(
        'BAD_REQUEST',
        `order ${orderId} is a ${o.rail} order, not ${rail}: call /api/xchain/${o.rail}/...`,
      )
    return o
  }
  const result = (o: XOrder): OperatorOrderResult => ({
    orderId: o.orderId,
    rail: o.rail,
    stage: o.stage,
    status: publicStatus(o.stage),
    reason: o.reason,
  })
  const notLeading = () =>
    new BaseError(
      'CHAIN_UNAVAILABLE',
      'this process does not run the solver worker now (another process ' +
        'leads): retry against the leader, or wait for its next pass',
    )

  return {
    rails: Object.keys(d.rails) as XchainRail[],
    async build(rail, req) {
      const { order, reserve, response } = await railOf(rail).prepare(req)
      // Held, then recorded, then answered: nothing is promised that the store does not know.
      await d.reservations.hold({ id: order.orderId, ...reserve, ref: `${rail} order`, what: 'this order pays out' })
      try {
        await d.orders.insert(order)
      } catch (e) {
        await d.reservations.release(order.orderId)
        throw e
      }
      d.wake(order.orderId)
      return response
    },
    async submit(rail, orderId, body) {
      const r = railOf(rail)
      if (!r.submit)
        throw new BaseError('NOT_FOUND', `the ${rail} rail has no relayed open: the user submits the lock itself`)
      try {
        return await r.submit(await ownOrder(rail, orderId), body)
      } finally {
        // The relayed lock (or the attempt) changed what the worker should look at.
        d.wake(orderId)
      }
    },
    status: (orderId, rail) =>
      xchainStatus({ rails: d.rails, orders: d.orders, step: d.leading() ? d.worker.step : undefined }, orderId, rail),
    async settle(rail, orderId) {
      await ownOrder(rail, orderId)
      if (!d.leading()) throw notLeading()
      return result((await d.worker.step(orderId))!)
    },
    async refund(rail, orderId) {
      await ownOrder(rail, orderId)
      if (!d.leading()) throw notLeading()
      return result((await d.worker.refundNow(orderId))!)
    },
    async heartbeat() {
      const [paused, lastPassAt, orders, attestors] = await Promise.all([
        d.switches.paused(),
        d.switches.lastPassAt(),
        d.orders.countByStage(),
        Promise.all(
          d.attestors.map(async (a) => ({
            index: a.index,
            online: await Promise.race([a.ping(), sleep(300).then(() => false)]),
          })),
        ),
      ])
      return {
        ok: true,
        leading: d.leading(),
        paused,
        lastPassAt,
        rails: Object.keys(d.rails) as XchainRail[],
        orders,
        attestors,
      }
    },
    async pause(p) {
      const paused = { deliveries: p.deliveries, claims: p.claims }
      await d.switches.setPaused(paused)
      return paused
    },
    async resume() {
      const paused = { deliveries: false, claims: false }
      await d.switches.setPaused(paused)
      return paused
    },
    async reserve(p) {
      const id = d.reservations.newId()
      const expiresAt = Date.now() + p.ttlSeconds * 1000
      const { available } = await d.reservations.hold({
        id,
        network: p.network,
        token: p.token,
        amount: p.amount,
        ref: p.ref,
        expiresAt,
        what: 'asked for',
      })
      return {
        id,
        network: p.network,
        token: p.token,
        amount: p.amount.toString(),
        available: available.toString(),
        expiresAt,
      }
    },
    async release(id) {
      const released = await d.reservations.release(id)
      const state = await d.reservations.state(id)
      if (!state) throw new BaseError('NOT_FOUND', `no reservation ${id}`)
      return { id, released, state }
    },
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.())
