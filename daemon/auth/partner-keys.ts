import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Store } from '../store/store.js'
import type { PartnerKeysTable } from '../store/tables/foundation.js'

export type KeyState = PartnerKeysTable['state']

export type PartnerKey = {
  id: string
  hint: string
  name: string
  description: string | null
  /** The wallet the key is bound to (`--owner`), or null: an operator key made without one. */
  owner: string | null
  state: KeyState
  createdAt: number
  updatedAt: number
  /** The dashboard wallet that created it (lower case), or null for a key made by the operator. */
  ownerWallet: string | null
  lastUsedAt: number | null
}

type Row = Selectable<PartnerKeysTable>

const toKey = (r: Row): PartnerKey => ({
  id: r.id,
  hint: r.hint,
  name: r.name,
  description: r.description,
  owner: r.owner === NO_OWNER ? null : r.owner,
  state: r.state,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  ownerWallet: r.owner_wallet,
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
})

/**
 * How "no owner" is stored: the column is NOT NULL since 001, and SQLite cannot drop that without
 * rebuilding the table; no address is empty, so the empty string never stands for a wallet.
 */
const NO_OWNER = ''

/** How often a key in use has its last-used time written: a write per request would serialise the store. */
const LAST_USED_RESOLUTION_MS = 60_000

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** `<prefix>-<32 lowercase hex>`; anything else is rejected before the store is read. */
export const keyPattern = (prefix: string) => new RegExp(`^${prefix}-[0-9a-f]{32}$`)

export type PartnerKeyStore = {
  create(input: {
    name: string
    description?: string
    owner?: string
    ownerWallet?: string
  }): Promise<{ key: string; record: PartnerKey }>
  /** The key's record when `key` is a known key (any state), compared in constant time. */
  lookup(key: string): Promise<PartnerKey | undefined>
  get(id: string): Promise<PartnerKey | undefined>
  list(owner?: string): Promise<PartnerKey[]>
  /** Keys a dashboard wallet created (not deleted), oldest first. */
  listByWallet(wallet: string): Promise<PartnerKey[]>
  setState(id: string, state: KeyState): Promise<PartnerKey | undefined>
  hashOf(id: string): Promise<string | undefined>
  /** Records that a valid key was just used (at most once a minute per key per process). */
  touch(key: string): Promise<void>
}

/** Partner keys in the store. Only the hash of a key is kept; the secret is shown once, at creation. */
export function partnerKeyStore(store: Store, prefix: string): PartnerKeyStore {
  const { db } = store
  const byId = (id: string) => db.selectFrom('partner_keys').selectAll().where('id', '=', id).executeTakeFirst()
  const touched = new Map<string, number>()
  const get = async (id: string) => {
    const r = await byId(id)
    return r ? toKey(r) : undefined
  }
  return {
    async create(input) {
      const key = `${prefix}-${randomBytes(16).toString('hex')}`
      const now = Date.now()
      const row: Row = {
        id: randomUUID(),
        key_hash: hashKey(key),
        hint: `${prefix}-…${key.slice(-4)}`,
        name: input.name,
        description: input.description ?? null,
        owner: input.owner?.toLowerCase() ?? NO_OWNER,
        state: 'active',
        created_at: now,
        updated_at: now,
        owner_wallet: input.ownerWallet?.toLowerCase() ?? null,
        last_used_at: null,
      }
      await db.insertInto('partner_keys').values(row).execute()
      return { key, record: toKey(row) }
    },
    async lookup(key) {
      const hash = hashKey(key)
      const row = await db.selectFrom('partner_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst()
      if (!row) return undefined
      return timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) ? toKey(row) : undefined
    },
    get,
    async list(owner) {
      let q = db.selectFrom('partner_keys').selectAll().where('state', '!=', 'deleted')
      if (owner) q = q.where('owner', '=', owner.toLowerCase())
      return (await q.orderBy('created_at').orderBy('id').execute()).map(toKey)
    },
    async listByWallet(wallet) {
      const rows = await db
        .selectFrom('partner_keys')
        .selectAll()
        .where('state', '!=', 'deleted')
        .where('owner_wallet', '=', wallet.toLowerCase())
        .orderBy('created_at')
        .orderBy('id')
        .execute()
      return rows.map(toKey)
    },
    async setState(id, state) {
      await db.updateTable('partner_keys').set({ state, updated_at: Date.now() }).where('id', '=', id).execute()
      return get(id)
    },
    hashOf: async (id) => (await byId(id))?.key_hash,
    async touch(key) {
      const hash = hashKey(key)
      const now = Date.now()
      if (now - (touched.get(hash) ?? 0) < LAST_USED_RESOLUTION_MS) return
      touched.set(hash, now)
      if (touched.size > 50_000) touched.delete(touched.keys().next().value!)
      await db.updateTable('partner_keys').set({ last_used_at: now }).where('key_hash', '=', hash).execute()
    },
  }
}
