import { randomBytes } from 'node:crypto'
import { type Kysely, sql } from 'kysely'
import { BaseError } from '../../src/errors/index.js'
import { fromBaseUnits } from '../../src/sdk/units.js'
import { type KeyedLock, processLock } from '../locks/lock.js'
import type { Database } from '../store/database.js'
import type { Store } from '../store/store.js'

/** Reads the solver's live balance of a token on a network (base units). */
export type BalanceReader = (network: string, token: string) => Promise<{ balance: bigint; decimals: number }>

/**
 * Destination inventory promised to orders not yet delivered (and what POST /api/reserve holds).
 * What the solver can still promise = its balance - everything held. A build reads, checks and
 * holds under one lock per (network, token), so two builds never promise the same units.
 */
export type Reservations = {
  /** Holds `amount` for `id` when that much is free; INVENTORY_SHORT (400) otherwise. */
  hold(p: {
    id: string
    network: string
    token: string
    amount: bigint
    ref: string
    expiresAt?: number
    what: string
  }): Promise<{ available: bigint }>
  /** Delivered: no longer counted (the balance now shows it). */
  spend(id: string): Promise<void>
  /** Free again (expired, refunded, never opened, released by hand); false when it was not held. */
  release(id: string): Promise<boolean>
  state(id: string): Promise<'held' | 'spent' | 'released' | undefined>
  available(network: string, token: string): Promise<bigint>
  /** A new id for the reserve route. */
  newId(): string
}

export function reservations(p: { store: Store; balance: BalanceReader; lock?: KeyedLock }): Reservations {
  const { db } = p.store
  const lock = p.lock ?? processLock()
  const held = async (network: string, token: string, q: Kysely<Database> = db) => {
    const rows = await q
      .selectFrom('xchain_reservations')
      .select(['amount', 'expires_at'])
      .where('state', '=', 'held')
      .where('network', '=', network)
      .where('token', '=', token)
      .execute()
    const now = Date.now()
    return rows
      .filter((r) => r.expires_at === null || Number(r.expires_at) > now)
      .reduce((s, r) => s + BigInt(r.amount), 0n)
  }
  const available = async (network: string, token: string) => {
    const [{ balance }, h] = await Promise.all([p.balance(network, token), held(network, token)])
    return balance > h ? balance - h : 0n
  }
  const settle = async (id: string, state: 'spent' | 'released') => {
    const r = await db
      .updateTable('xchain_reservations')
      .set({ state, updated_at: Date.now() })
      .where('id', '=', id)
      .where('state', '=', 'held')
      .executeTakeFirst()
    return Number(r.numUpdatedRows) === 1
  }
  return {
    // In this process, one hold per (network, token) at a time; across API replicas on PostgreSQL,
    // a transaction-scoped advisory lock on the same key makes read-check-insert atomic too.
    hold: (h) =>
      lock.run(`${h.network}:${h.token}`, async () => {
        const balance = await p.balance(h.network, h.token)
        return db.transaction().execute(async (tx) => {
          if (p.store.dialect === 'postgres')
            await sql`SELECT pg_advisory_xact_lock(hashtext(${`xchain-reserve:${h.network}:${h.token}`}))`.execute(tx)
          const reserved = await held(h.network, h.token, tx)
          const free = balance.balance > reserved ? balance.balance - reserved : 0n
          if (free < h.amount) {
            const { decimals } = balance
            throw new BaseError(
              'INVENTORY_SHORT',
              `the solver's ${h.token} inventory on ${h.network} is short: ` +
                `${fromBaseUnits(free, decimals)} free (${fromBaseUnits(balance.balance, decimals)} ` +
                `held, the rest promised to open orders), less than the ${fromBaseUnits(h.amount, decimals)} ` +
                `${h.what}; no fallback sourcing is enabled for this route: reduce the amount or retry later`,
            )
          }
          const t = Date.now()
          await tx
            .insertInto('xchain_reservations')
            .values({
              id: h.id,
              network: h.network,
              token: h.token,
              amount: h.amount.toString(),
              ref: h.ref,
              state: 'held',
              expires_at: h.expiresAt ?? null,
              created_at: t,
              updated_at: t,
            })
            .execute()
          return { available: free - h.amount }
        })
      }),
    spend: async (id) => void (await settle(id, 'spent')),
    release: (id) => settle(id, 'released'),
    async state(id) {
      const r = await db.selectFrom('xchain_reservations').select('state').where('id', '=', id).executeTakeFirst()
      return r?.state
    },
    available,
    newId: () => `rsv_${randomBytes(12).toString('hex')}`,
  }
}
