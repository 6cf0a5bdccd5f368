import type { Selectable } from 'kysely'
import { BaseError } from '../../src/errors/base.js'
import type { XchainRail } from '../../src/sdk/xchain/wire.js'
import type { Store } from '../store/store.js'
import type { XchainOrdersTable } from '../store/tables/xchain.js'
import { ACTIVE_STAGES, canMove, type Stage } from './stages.js'

/** One cross-chain order as the worker, the rails and the status route see it. */
export type XOrder = {
  orderId: `0x${string}`
  rail: XchainRail
  stage: Stage
  user: string
  inSymbol: string
  outSymbol: string
  inputToken: string
  inputAmount: bigint
  destChain: `0x${string}`
  outputToken: string
  outputAmount: bigint
  recipient: string
  fillDeadline: number
  expires: number
  nonce: bigint
  /** The rail's own encoding of the whole order (JSON). */
  orderData: string
  openRef: string | null
  openValidUntil: number | null
  deliverRef: string | null
  delivered: bigint | null
  claimRef: string | null
  claimValidUntil: number | null
  /** The signed claim transaction (base64) when the rail keeps it: sent again as is by a later leader. */
  claimRaw: string | null
  refundRef: string | null
  refundValidUntil: number | null
  refundRaw: string | null
  reason: string | null
  attempts: number
  createdAt: number
  updatedAt: number
}

export type NewOrder = Omit<
  XOrder,
  | 'stage'
  | 'deliverRef'
  | 'delivered'
  | 'claimRef'
  | 'claimValidUntil'
  | 'claimRaw'
  | 'refundRef'
  | 'refundValidUntil'
  | 'refundRaw'
  | 'reason'
  | 'attempts'
  | 'createdAt'
  | 'updatedAt'
>

/** What a move may also write. */
export type OrderPatch = Partial<
  Pick<
    XOrder,
    | 'deliverRef'
    | 'delivered'
    | 'claimRef'
    | 'claimValidUntil'
    | 'claimRaw'
    | 'refundRef'
    | 'refundValidUntil'
    | 'refundRaw'
    | 'reason'
  >
>

/** Port: the cross-chain orders (xchain_orders). */
export type OrderStore = {
  insert(o: NewOrder): Promise<void>
  get(orderId: string): Promise<XOrder | undefined>
  /** Orders the worker still moves, oldest first. */
  active(limit?: number): Promise<XOrder[]>
  /**
   * Moves `from` -> `to` when the row is still at `from` (so two movers never both win); false
   * when it was not. Refuses moves the state machine does not have.
   */
  move(orderId: string, from: Stage, to: Stage, patch?: OrderPatch): Promise<boolean>
  /** Writes references on the row without changing its stage (persisted before a broadcast). */
  note(orderId: string, stage: Stage, patch: OrderPatch): Promise<boolean>
  /**
   * Sets the lock reference of an order when it still is `expected` (compare-and-set): the one
   * relay of a lock the solver submits for the user (evm-origin's openFor) wins it. Any stage: the
   * relay's hash is recorded even when the worker saw the lock land first.
   */
  swapOpenRef(orderId: string, expected: string | null, ref: string | null): Promise<boolean>
  /** A failed attempt of the current step: counted, with its reason, for the heartbeat and the log. */
  failed(orderId: string, reason: string): Promise<void>
  countByStage(): Promise<Record<string, number>>
}

const toRow = (o: Partial<XOrder>): Partial<XchainOrdersTable> => {
  const r: Partial<XchainOrdersTable> = {}
  if (o.deliverRef !== undefined) r.deliver_ref = o.deliverRef
  if (o.delivered !== undefined) r.delivered = o.delivered === null ? null : o.delivered.toString()
  if (o.claimRef !== undefined) r.claim_ref = o.claimRef
  if (o.claimValidUntil !== undefined) r.claim_valid_until = o.claimValidUntil
  if (o.claimRaw !== undefined) r.claim_raw = o.claimRaw
  if (o.refundRef !== undefined) r.refund_ref = o.refundRef
  if (o.refundValidUntil !== undefined) r.refund_valid_until = o.refundValidUntil
  if (o.refundRaw !== undefined) r.refund_raw = o.refundRaw
  if (o.reason !== undefined) r.reason = o.reason
  return r
}

export function fromRow(r: Selectable<XchainOrdersTable>): XOrder {
  return {
    orderId: r.order_id as `0x${string}`,
    rail: r.rail,
    stage: r.stage as Stage,
    user: r.user,
    inSymbol: r.in_symbol,
    outSymbol: r.out_symbol,
    inputToken: r.input_token,
    inputAmount: BigInt(r.input_amount),
    destChain: r.dest_chain as `0x${string}`,
    outputToken: r.output_token,
    outputAmount: BigInt(r.output_amount),
    recipient: r.recipient,
    fillDeadline: Number(r.fill_deadline),
    expires: Number(r.expires),
    nonce: BigInt(r.nonce),
    orderData: r.order_data,
    openRef: r.open_ref,
    openValidUntil: r.open_valid_until === null ? null : Number(r.open_valid_until),
    deliverRef: r.deliver_ref,
    delivered: r.delivered === null ? null : BigInt(r.delivered),
    claimRef: r.claim_ref,
    claimValidUntil: r.claim_valid_until === null ? null : Number(r.claim_valid_until),
    claimRaw: r.claim_raw ?? null,
    refundRef: r.refund_ref,
    refundValidUntil: r.refund_valid_until === null ? null : Number(r.refund_valid_until),
    refundRaw: r.refund_raw ?? null,
    reason: r.reason,
    attempts: r.attempts,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  }
}

export function orderStore(store: Store): OrderStore {
  const { db } = store
  return {
    async insert(o) {
      const t = Date.now()
      await db
        .insertInto('xchain_orders')
        .values({
          order_id: o.orderId,
          rail: o.rail,
          stage: 'built',
          user: o.user,
          in_symbol: o.inSymbol,
          out_symbol: o.outSymbol,
          input_token: o.inputToken,
          input_amount: o.inputAmount.toString(),
          dest_chain: o.destChain,
          output_token: o.outputToken,
          output_amount: o.outputAmount.toString(),
          recipient: o.recipient,
          fill_deadline: o.fillDeadline,
          expires: o.expires,
          nonce: o.nonce.toString(),
          order_data: o.orderData,
          open_ref: o.openRef,
          open_valid_until: o.openValidUntil,
          deliver_ref: null,
          delivered: null,
          claim_ref: null,
          claim_valid_until: null,
          claim_raw: null,
          refund_ref: null,
          refund_valid_until: null,
          refund_raw: null,
          reason: null,
          attempts: 0,
          created_at: t,
          updated_at: t,
        })
        .execute()
    },
    async get(orderId) {
      const r = await db
        .selectFrom('xchain_orders')
        .selectAll()
        .where('order_id', '=', orderId.toLowerCase())
        .executeTakeFirst()
      return r && fromRow(r)
    },
    async active(limit = 1_000) {
      const rows = await db
        .selectFrom('xchain_orders')
        .selectAll()
        .where('stage', 'in', [...ACTIVE_STAGES])
        .orderBy('created_at')
        .limit(limit)
        .execute()
      return rows.map(fromRow)
    },
    async move(orderId, from, to, patch = {}) {
      if (!canMove(from, to)) throw new BaseError('INTERNAL', `cross-chain order ${orderId}: no move ${from} -> ${to}`)
      const r = await db
        .updateTable('xchain_orders')
        .set({
          ...toRow(patch),
          stage: to,
          attempts: 0,
          ...(to === 'attention' ? {} : patch.reason === undefined ? { reason: null } : {}),
          updated_at: Date.now(),
        })
        .where('order_id', '=', orderId)
        .where('stage', '=', from)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async note(orderId, stage, patch) {
      const r = await db
        .updateTable('xchain_orders')
        .set({ ...toRow(patch), updated_at: Date.now() })
        .where('order_id', '=', orderId)
        .where('stage', '=', stage)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async swapOpenRef(orderId, expected, ref) {
      let q = db
        .updateTable('xchain_orders')
        .set({ open_ref: ref, updated_at: Date.now() })
        .where('order_id', '=', orderId)
      q = expected === null ? q.where('open_ref', 'is', null) : q.where('open_ref', '=', expected)
      const r = await q.executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async failed(orderId, reason) {
      await db
        .updateTable('xchain_orders')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), reason: reason.slice(0, 2_000), updated_at: Date.now() }))
        .where('order_id', '=', orderId)
        .execute()
    },
    async countByStage() {
      const rows = await db
        .selectFrom('xchain_orders')
        .select(['stage'])
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .groupBy('stage')
        .execute()
      return Object.fromEntries(rows.map((r) => [r.stage, Number(r.n)]))
    },
  }
}
