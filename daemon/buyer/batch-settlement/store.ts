import { randomUUID } from 'node:crypto'
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely'
import { BaseError } from '../../../src/errors/index.js'
import { fromBaseUnits, toBaseUnits } from '../../../src/sdk/units.js'
import { type AgentRow, policyOf, type UserRow } from '../../platform/store.js'
import type { Database } from '../../store/database.js'
import type { Store } from '../../store/store.js'
import type { ChannelSpendColumns, PlatformPayChannelsTable } from '../../store/tables/channels.js'
import type { PlatformSpendsTable } from '../../store/tables/platform.js'
import { budgetState, lockForSpend } from '../budget-store.js'
import { refuseFrozen } from '../freeze.js'
import { checkSpend } from '../limits.js'
import { addDecimals } from '../report.js'

export type ChannelRow = Selectable<PlatformPayChannelsTable>
/**
 * The store as this module sees it: the spends ledger with its channel columns (545), which only channels read or
 * write.
 */
type Db = Omit<Database, 'platform_spends'> & { platform_spends: PlatformSpendsTable & ChannelSpendColumns }
export type SpendWithChannel = Selectable<Db['platform_spends']>
export type NewChannel = Pick<
  ChannelRow,
  'id' | 'agent_id' | 'network' | 'token' | 'config' | 'receiver' | 'receiver_authorizer' | 'url' | 'host'
>
export type ChannelPatch = Partial<
  Pick<
    ChannelRow,
    | 'url'
    | 'host'
    | 'deposited'
    | 'signed'
    | 'charged'
    | 'refunded'
    | 'refund_nonce'
    | 'pending_deposit'
    | 'pending_spend'
    | 'withdraw_amount'
    | 'withdraw_requested_at'
    | 'withdraw_finalizable_at'
    | 'withdrawn'
  >
>

/** One spend on a channel: what the limit check and the ledger row need. */
export type ChannelSpend = {
  agentId: string
  channelId: string
  amountMicros: bigint
  token: string
  amount: string
  recipient: string
  host: string
}

/** How long one pay may hold a channel before another replica may take it over (a crashed holder). */
const POLL_MS = 25

/**
 * The agents' channels and their accounting on the spends ledger. A deposit is a `pay` spend tagged
 * `deposit`: money in escrow, counted against the limits from the moment it is reserved until it is
 * refunded. A voucher is a `pay` spend tagged `voucher` that draws on the escrow: its reservation
 * checks the limits as a payment of its own amount would (the channel's escrow left out of the
 * day's total, since the voucher is paid from it), and moves that amount out of the escrow row, so
 * what counts in the day stays deposit-sized and a voucher is never counted twice. Every step runs
 * in one transaction holding the agent's row, like `spends.reserve`, so replicas share the limits.
 */
export type ChannelStore = {
  ensure(c: NewChannel): Promise<void>
  get(id: string): Promise<ChannelRow | undefined>
  /** The agent's channels, newest first, leaving out any nothing was ever signed for. */
  list(agentId: string): Promise<ChannelRow[]>
  update(id: string, patch: ChannelPatch): Promise<void>
  /** A spend row by id (a channel's pending deposit). */
  spend(id: string): Promise<SpendWithChannel | undefined>
  /**
   * Holds the channel for this pay (across replicas) until `release` or `holdMs` passes; waits up to `waitMs` for
   * another holder.
   */
  lease(id: string, holdMs: number, waitMs: number): Promise<{ release(): Promise<void> }>
  reserveDeposit(s: ChannelSpend): Promise<SpendWithChannel>
  reserveVoucher(s: ChannelSpend): Promise<SpendWithChannel>
  /** The seller charged `chargedMicros` of the voucher's reservation: the rest goes back to the escrow. */
  settleVoucher(spend: SpendWithChannel, chargedMicros: bigint, chargedAmount: string): Promise<void>
  /** The voucher charged nothing (refused, failed): its reservation goes back to the escrow, which still counts it. */
  releaseVoucher(spend: SpendWithChannel, reason: string): Promise<void>
  /**
   * A charge the seller proved with our own voucher (a corrective 402) that we had not recorded: drawn from the escrow,
   * confirmed.
   */
  recordCharge(s: ChannelSpend, reason: string): Promise<void>
  /** `micros` of the escrow came back to the wallet (a refund): it stops counting. */
  refundEscrow(channelId: string, micros: bigint, amount: string, reason: string): Promise<void>
}

export function channelStore(store: Store): ChannelStore {
  const db = store.db as unknown as Kysely<Db>
  // The user's row, then the agent's, like spends.reserve (budget-store.ts): one lock order, no deadlock.
  const locked = async <T>(agentId: string, f: (tx: Transaction<Db>, agent: AgentRow, user: UserRow) => Promise<T>) =>
    db.transaction().execute(async (tx) => {
      const { agent, user } = await lockForSpend(tx as unknown as Store['db'], store.dialect, agentId)
      return f(tx, agent, user)
    })
  /** What counts in each window, leaving out the escrow of `drawingOn`: the channel a voucher is being paid from. */
  const state = (tx: Transaction<Db>, agent: AgentRow, user: UserRow, drawingOn?: string) =>
    budgetState(tx as unknown as Store['db'], agent, user, Date.now(), drawingOn)
  const insert = (
    tx: Transaction<Db>,
    s: ChannelSpend,
    role: 'deposit' | 'voucher',
    state: SpendWithChannel['state'],
    reason: string | null,
  ) => {
    const now = Date.now()
    return tx
      .insertInto('platform_spends')
      .values({
        id: randomUUID(),
        agent_id: s.agentId,
        kind: 'pay',
        amount_micros: s.amountMicros.toString(),
        token: s.token,
        amount: s.amount,
        recipient: s.recipient,
        host: s.host,
        state,
        tx: null,
        user_op: null,
        reason,
        created_at: now,
        updated_at: now,
        channel_id: s.channelId,
        channel_role: role,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
  }
  return {
    async ensure(c) {
      const now = Date.now()
      await db
        .insertInto('platform_pay_channels')
        .values({
          ...c,
          deposited: '0',
          signed: '0',
          charged: '0',
          refunded: '0',
          refund_nonce: '0',
          pending_deposit: null,
          pending_spend: null,
          lease: null,
          lease_until: null,
          withdraw_amount: null,
          withdraw_requested_at: null,
          withdraw_finalizable_at: null,
          withdrawn: '0',
          created_at: now,
          updated_at: now,
        })
        .onConflict((o) => o.column('id').doNothing())
        .execute()
    },
    get: (id) => db.selectFrom('platform_pay_channels').selectAll().where('id', '=', id).executeTakeFirst(),
    // A channel nothing was ever signed for (a first pay refused by the limits or the terms before
    // its deposit was signed) is no channel to the agent: its row exists only for the pay's lease.
    list: (agentId) =>
      db
        .selectFrom('platform_pay_channels')
        .selectAll()
        .where('agent_id', '=', agentId)
        .where((eb) =>
          eb.or([eb('signed', '!=', '0'), eb('deposited', '!=', '0'), eb('pending_spend', 'is not', null)]),
        )
        .orderBy('created_at', 'desc')
        .execute(),
    spend: (id) => db.selectFrom('platform_spends').selectAll().where('id', '=', id).executeTakeFirst(),
    async update(id, patch) {
      await db
        .updateTable('platform_pay_channels')
        .set({ ...patch, updated_at: Date.now() })
        .where('id', '=', id)
        .execute()
    },
    async lease(id, holdMs, waitMs) {
      const token = randomUUID()
      const deadline = Date.now() + waitMs
      for (;;) {
        const now = Date.now()
        const r = await db
          .updateTable('platform_pay_channels')
          .set({ lease: token, lease_until: now + holdMs })
          .where('id', '=', id)
          .where((eb) => eb.or([eb('lease', 'is', null), eb('lease_until', '<', now)]))
          .executeTakeFirst()
        if (r.numUpdatedRows > 0n) break
        if (Date.now() > deadline)
          throw new BaseError(
            'SELLER_FAILED',
            `another payment on channel ${id} is still in progress; nothing was paid, retry shortly`,
            { fields: { charged: false, transaction: null } },
          )
        await new Promise((res) => setTimeout(res, POLL_MS))
      }
      return {
        async release() {
          await db
            .updateTable('platform_pay_channels')
            .set({ lease: null, lease_until: null })
            .where('id', '=', id)
            .where('lease', '=', token)
            .execute()
        },
      }
    },
    reserveDeposit: (s) =>
      locked(s.agentId, async (tx, agent, user) => {
        refuseFrozen(agent)
        // One channel per seller, network (the agent's) and token: a seller that changes its terms
        // (withdraw delay, authorizer) names another channel, which must not take a second deposit
        // while the first still holds one. Checked here, under the agent's lock, so replicas agree.
        const held = await tx
          .selectFrom('platform_spends')
          .select(['channel_id', 'amount_micros', 'amount'])
          .where('agent_id', '=', s.agentId)
          .where('channel_role', '=', 'deposit')
          .where('state', '!=', 'released')
          .where('recipient', '=', s.recipient)
          .where('token', '=', s.token)
          .where('channel_id', '!=', s.channelId)
          .execute()
        const other = held.find((r) => BigInt(r.amount_micros) > 0n)
        if (other) {
          throw new BaseError(
            'CHANNEL_TERMS_CHANGED',
            `the seller ${s.recipient} offers a batch-settlement channel on other terms ` +
              `than channel ${other.channel_id}, which still holds this agent's deposit; ` +
              `nothing was paid: refund or withdraw that channel (parx channels refund|withdraw ` +
              `${other.channel_id}) before paying this seller on its new terms`,
            {
              fields: { charged: false, transaction: null, channelId: other.channel_id },
            },
          )
        }
        // The per-payment limit bounds what the seller may charge, i.e. each voucher; the deposit is
        // escrow the agent gets back unless vouchers draw on it, so it counts against the windows only
        // (every window, agent and user, for as long as it is in escrow).
        checkSpend(await state(tx, agent, user), policyOf(agent).allowedHosts, {
          amountMicros: s.amountMicros,
          host: s.host,
          perPayment: false,
        })
        return insert(tx, s, 'deposit', 'reserved', `deposit of ${s.amount} ${s.token} into channel ${s.channelId}`)
      }),
    reserveVoucher: (s) =>
      locked(s.agentId, async (tx, agent, user) => {
        refuseFrozen(agent)
        checkSpend(await state(tx, agent, user, s.channelId), policyOf(agent).allowedHosts, {
          amountMicros: s.amountMicros,
          host: s.host,
        })
        const row = await insert(tx, s, 'voucher', 'reserved', `voucher on channel ${s.channelId}`)
        await moveEscrow(tx, s.channelId, s.amountMicros, s.amount, 'out')
        return row
      }),
    settleVoucher: (spend, chargedMicros, chargedAmount) =>
      locked(spend.agent_id, async (tx) => {
        const reserved = BigInt(spend.amount_micros)
        await tx
          .updateTable('platform_spends')
          .set({
            state: 'confirmed',
            amount_micros: chargedMicros.toString(),
            amount: chargedAmount,
            updated_at: Date.now(),
          })
          .where('id', '=', spend.id)
          .execute()
        if (reserved > chargedMicros)
          await moveEscrow(
            tx,
            spend.channel_id!,
            reserved - chargedMicros,
            subDecimals(spend.amount, chargedAmount),
            'in',
          )
      }),
    releaseVoucher: (spend, reason) =>
      locked(spend.agent_id, async (tx) => {
        const r = await tx
          .updateTable('platform_spends')
          .set({ state: 'released', reason, updated_at: Date.now() })
          .where('id', '=', spend.id)
          .where('state', '=', 'reserved')
          .executeTakeFirst()
        if (r.numUpdatedRows > 0n)
          await moveEscrow(tx, spend.channel_id!, BigInt(spend.amount_micros), spend.amount, 'in')
      }),
    recordCharge: (s, reason) =>
      locked(s.agentId, async (tx) => {
        await insert(tx, s, 'voucher', 'confirmed', reason)
        await moveEscrow(tx, s.channelId, s.amountMicros, s.amount, 'out')
      }),
    async refundEscrow(channelId, micros, amount, reason) {
      await db.transaction().execute(async (tx) => {
        await moveEscrow(tx, channelId, micros, amount, 'out')
        // Appended: the row's reason keeps what was deposited (its amount now says what is left in escrow).
        await tx
          .updateTable('platform_spends')
          .set({ reason: sql<string>`coalesce(reason || '; ', '') || ${reason}`, updated_at: Date.now() })
          .where('channel_id', '=', channelId)
          .where('channel_role', '=', 'deposit')
          .where('state', '!=', 'released')
          .execute()
      })
    },
  }
}

/**
 * Moves `micros` (and the same money in token units, `amount`) out of the channel's escrow rows
 * (`out`: oldest first, never below zero) or back into the newest (`in`). The row's token `amount`
 * follows its `amount_micros`, so a deposit row always says what is still in escrow: the report's
 * and the history's token amounts then count a channel once, as the limits do (the vouchers hold
 * what the seller charged, the deposit row the rest).
 */
async function moveEscrow(
  tx: Transaction<Db>,
  channelId: string,
  micros: bigint,
  amount: string,
  dir: 'out' | 'in',
): Promise<void> {
  const rows = await tx
    .selectFrom('platform_spends')
    .select(['id', 'amount_micros', 'amount'])
    .where('channel_id', '=', channelId)
    .where('channel_role', '=', 'deposit')
    .where('state', '!=', 'released')
    .orderBy('created_at', dir === 'out' ? 'asc' : 'desc')
    .execute()
  let left = micros
  let leftAmount = amount
  for (const r of rows) {
    if (left === 0n) break
    const have = BigInt(r.amount_micros)
    let next: bigint
    let nextAmount: string
    if (dir === 'in') {
      next = have + left
      nextAmount = addDecimals(r.amount, leftAmount)
      left = 0n
    } else if (have > left) {
      next = have - left
      nextAmount = subDecimals(r.amount, leftAmount)
      left = 0n
    } else {
      // Drained: whatever of the token amount this row held is taken from what is left to move.
      next = 0n
      nextAmount = '0'
      left -= have
      leftAmount = subDecimals(leftAmount, r.amount)
    }
    await tx
      .updateTable('platform_spends')
      .set({ amount_micros: next.toString(), amount: nextAmount, updated_at: Date.now() })
      .where('id', '=', r.id)
      .execute()
  }
}

/**
 * a - b for non-negative decimal strings, exactly, floored at zero (micros round up, so a token amount may run out a
 * hair early).
 */
function subDecimals(a: string, b: string): string {
  const places = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0)
  const d = toBaseUnits(a, places) - toBaseUnits(b, places)
  return fromBaseUnits(d > 0n ? d : 0n, places)
}
