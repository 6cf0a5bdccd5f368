import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import type { Db } from '../store/db.js'

export type KeyState = 'active' | 'deactivated' | 'deleted'

export type PartnerKey = {
  id: string
  hint: string
  name: string
  description: string | null
  owner: string
  state: KeyState
  createdAt: number
  updatedAt: number
}

type Row = { id: string; key_hash: string; hint: string; name: string; description: string | null; owner: string; state: KeyState; created_at: number; updated_at: number }

const toKey = (r: Row): PartnerKey => ({
  id: r.id, hint: r.hint, name: r.name, description: r.description, owner: r.owner, state: r.state,
  createdAt: r.created_at, updatedAt: r.updated_at,
})

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** `<prefix>-<32 lowercase hex>`; anything else is rejected before the store is read. */
export const keyPattern = (prefix: string) => new RegExp(`^${prefix}-[0-9a-f]{32}$`)

/** Partner keys in the store. Only the hash of a key is kept; the secret is shown once, at creation. */
export function partnerKeyStore(db: Db, prefix: string) {
  const byHash = db.prepare<[string], Row>('SELECT * FROM partner_keys WHERE key_hash = ?')
  const byId = db.prepare<[string], Row>('SELECT * FROM partner_keys WHERE id = ?')
  const insert = db.prepare('INSERT INTO partner_keys (id, key_hash, hint, name, description, owner, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
  const setState = db.prepare('UPDATE partner_keys SET state = ?, updated_at = ? WHERE id = ?')
  const list = db.prepare<[string], Row>("SELECT * FROM partner_keys WHERE owner = ? AND state != 'deleted' ORDER BY created_at")
  const listAll = db.prepare<[], Row>("SELECT * FROM partner_keys WHERE state != 'deleted' ORDER BY created_at")

  return {
    create(input: { name: string; description?: string; owner: string }): { key: string; record: PartnerKey } {
      const key = `${prefix}-${randomBytes(16).toString('hex')}`
      const now = Date.now()
      const id = randomUUID()
      insert.run(id, hashKey(key), key.slice(0, prefix.length + 5), input.name, input.description ?? null, input.owner.toLowerCase(), 'active', now, now)
      return { key, record: toKey(byId.get(id)!) }
    },
    /** The key's record when `key` is a known key (any state), compared in constant time. */
    lookup(key: string): PartnerKey | undefined {
      const hash = hashKey(key)
      const row = byHash.get(hash)
      if (!row) return undefined
      return timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex')) ? toKey(row) : undefined
    },
    get: (id: string) => {
      const r = byId.get(id)
      return r ? toKey(r) : undefined
    },
    list: (owner?: string) => (owner ? list.all(owner.toLowerCase()) : listAll.all()).map(toKey),
    setState(id: string, state: KeyState): PartnerKey | undefined {
      setState.run(state, Date.now(), id)
      return this.get(id)
    },
    hashOf: (id: string) => byId.get(id)?.key_hash,
  }
}

export type PartnerKeyStore = ReturnType<typeof partnerKeyStore>
