import type { Selectable } from 'kysely'
import type { Address, Hex } from 'viem'
import { fromBaseUnits } from '../../../src/sdk/units.js'
import type { PaymentInfo } from '../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import type { Store } from '../../store/store.js'
import type { PlatformAgentHoldsTable } from '../../store/tables/agent-holds.js'
import { usdMicros } from '../limits.js'

export type AgentHoldRow = Selectable<PlatformAgentHoldsTable>

/** What the chain (or the seller's answer) says became of a hold's maximum, base units. */
export type HoldAmounts = { captured: bigint; voided: bigint; refunded: bigint; reclaimed: bigint }

export type NewAgentHold = {
  id: Hex
  spendId: string
  agentId: string
  network: string
  token: string
  decimals: number
  escrow: Address
  info: PaymentInfo
  fromBlock: bigint
}

/**
 * Agents' auth-capture holds beside the spends ledger. The spend of a hold is reserved at the
 * maximum; every outcome learned (the seller's PAYMENT-RESPONSE, the leader's read of the escrow:
 * ./refresh.ts) rewrites, in the same transaction, what the spend counts against the limits: what
 * the agent parted with or still has in escrow, `max - voided - refunded - reclaimed`. A hold
 * the escrow shows given back whole releases its spend. While `held`, the spend counts whatever its age
 * (daemon/buyer/spends.ts countedRows), since the money may be captured until the deadline.
 */
export type AgentHoldStore = {
  /** Recorded right after signing, before the seller sees the signature. */
  insert(h: NewAgentHold): Promise<void>
  get(id: string): Promise<AgentHoldRow | undefined>
  /**
   * What became of the hold. The seller's word (its PAYMENT-RESPONSE) only adds to what is known;
   * the escrow's (`fromChain`, the leader's read) replaces it, so a seller claiming a void it did
   * not make frees the limits only until the next read. A read that began (`readAt`, ms) before the
   * hold's last change is stale: it may predate the capture the pay just recorded, so it changes
   * nothing (the next round reads again), unless it comes with our own reclaim.
   */
  observe(
    id: string,
    a: HoldAmounts,
    p: {
      status: 'held' | 'settled' | 'done'
      tx?: string | null
      reclaimTx?: string | null
      fromChain?: boolean
      readAt?: number
    },
  ): Promise<AgentHoldRow | undefined>
  /** Holds the leader still watches (held, or settled before the refund deadline), oldest first. */
  open(limit?: number): Promise<AgentHoldRow[]>
  /** The holds of these spends, for history. */
  ofSpends(spendIds: string[]): Promise<AgentHoldRow[]>
}

const big = (v: string | number | bigint) => BigInt(v)
const max = (a: bigint, b: bigint) => (a > b ? a : b)

export function agentHoldStore(store: Store): AgentHoldStore {
  const { db } = store
  return {
    async insert(h) {
      const now = Date.now()
      const info = JSON.stringify(h.info, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))
      await db
        .insertInto('platform_agent_holds')
        .values({
          id: h.id,
          spend_id: h.spendId,
          agent_id: h.agentId,
          network: h.network,
          token: h.token,
          decimals: h.decimals,
          escrow: h.escrow,
          payment_info: info,
          max_amount: h.info.maxAmount.toString(),
          captured: '0',
          voided: '0',
          refunded: '0',
          reclaimed: '0',
          status: 'held',
          capture_deadline: h.info.authorizationExpiry,
          refund_deadline: h.info.refundExpiry,
          tx: null,
          reclaim_tx: null,
          from_block: Number(h.fromBlock),
          created_at: now,
          updated_at: now,
        })
        .execute()
    },
    get: (id) => db.selectFrom('platform_agent_holds').selectAll().where('id', '=', id).executeTakeFirst(),
    observe: (id, a, p) =>
      db.transaction().execute(async (tx) => {
        let q = tx.selectFrom('platform_agent_holds').selectAll().where('id', '=', id)
        if (store.dialect === 'postgres') q = q.forUpdate()
        const h = await q.executeTakeFirst()
        if (!h) return undefined
        // A reclaim of ours is newer than anything recorded meanwhile (no capture after the deadline).
        const stale = p.fromChain && !p.reclaimTx && p.readAt !== undefined && Number(h.updated_at) >= p.readAt
        if (stale) return h
        const next = p.fromChain
          ? a
          : {
              captured: max(big(h.captured), a.captured),
              voided: max(big(h.voided), a.voided),
              refunded: max(big(h.refunded), a.refunded),
              reclaimed: max(big(h.reclaimed), a.reclaimed),
            }
        const now = Date.now()
        // A hold never reopens: `held` only while it is still held by every account.
        const status = h.status === 'done' || (h.status === 'settled' && p.status === 'held') ? h.status : p.status
        const row = await tx
          .updateTable('platform_agent_holds')
          .set({
            captured: next.captured.toString(),
            voided: next.voided.toString(),
            refunded: next.refunded.toString(),
            reclaimed: next.reclaimed.toString(),
            status,
            updated_at: now,
            ...(p.tx ? { tx: p.tx } : {}),
            ...(p.reclaimTx ? { reclaim_tx: p.reclaimTx } : {}),
          })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow()
        const counted = max(big(h.max_amount) - next.voided - next.refunded - next.reclaimed, 0n)
        const amount = fromBaseUnits(counted, h.decimals)
        if (counted === 0n && status !== 'held' && p.fromChain) {
          // Everything came back, as the escrow shows: the spend stops counting (kept in history with its hold).
          await tx
            .updateTable('platform_spends')
            .set({
              state: 'released',
              amount_micros: '0',
              reason: 'auth-capture hold: everything came back to the agent (voided, refunded or reclaimed)',
              updated_at: now,
            })
            .where('id', '=', h.spend_id)
            .where('state', '!=', 'released')
            .execute()
        } else {
          // The amount too, so history and the report (token totals) show what the agent parted with; the hold keeps
          // the maximum.
          await tx
            .updateTable('platform_spends')
            .set({
              amount,
              amount_micros: usdMicros(amount, h.decimals).toString(),
              updated_at: now,
              ...(p.tx ? { tx: p.tx } : {}),
            })
            .where('id', '=', h.spend_id)
            .execute()
        }
        return row
      }),
    open: (limit = 100) =>
      db
        .selectFrom('platform_agent_holds')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb('status', '=', 'held'),
            eb.and([eb('status', '=', 'settled'), eb('refund_deadline', '>', Math.floor(Date.now() / 1000) - 3600)]),
          ]),
        )
        .orderBy('created_at')
        .limit(limit)
        .execute(),
    ofSpends: (ids) =>
      ids.length
        ? db.selectFrom('platform_agent_holds').selectAll().where('spend_id', 'in', ids).execute()
        : Promise.resolve([]),
  }
}
