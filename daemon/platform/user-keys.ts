import { randomUUID } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Address } from 'viem'
import { hashPlatformKey, maskPlatformKey, newPlatformKey } from '../../src/sdk/platform/keys.js'
import type { Store } from '../store/store.js'
import type { PlatformUserKeysTable } from '../store/tables/platform.js'
import type { UserRow } from './store.js'

export type UserKeyRow = Selectable<PlatformUserKeysTable>

/**
 * A user's CLI keys ("command line access", docs/dashboard.md "Dashboard") and the user a dashboard wallet signs in
 * as. Beside daemon/platform/store.ts, which creates a user together with its first key: a wallet
 * that signs in gets a user with no key until it asks for one.
 */
export type UserKeys = {
  /** The platform user bound to this wallet, created on first sign-in. */
  userForWallet(wallet: Address): Promise<UserRow>
  list(userId: string): Promise<UserKeyRow[]>
  /** The plaintext key is in this answer only; the store keeps its SHA-256. */
  create(userId: string): Promise<{ key: UserKeyRow; userKey: string }>
  /** Revokes once (a second call keeps the first time); undefined when the key is not this user's. */
  revoke(userId: string, keyId: string): Promise<UserKeyRow | undefined>
}

export function userKeys(store: Store): UserKeys {
  const { db } = store
  const byWallet = (wallet: Address) =>
    db.selectFrom('platform_users').selectAll().where('wallet', '=', wallet).executeTakeFirst()
  const key = (userId: string, keyId: string) =>
    db
      .selectFrom('platform_user_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', keyId)
      .executeTakeFirst()
  return {
    async userForWallet(wallet) {
      const found = await byWallet(wallet)
      if (found) return found
      const row: UserRow = {
        id: randomUUID(),
        wallet,
        name: null,
        created_at: Date.now(),
        per_payment_usd: null,
        hourly_usd: null,
        daily_usd: null,
        weekly_usd: null,
        monthly_usd: null,
      }
      try {
        await db.insertInto('platform_users').values(row).execute()
      } catch (e) {
        // Two first sign-ins at once: the wallet's unique index lets one insert win; use that one.
        const raced = await byWallet(wallet)
        if (raced) return raced
        throw e
      }
      return row
    },
    list: (userId) =>
      db
        .selectFrom('platform_user_keys')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    async create(userId) {
      const userKey = newPlatformKey('user')
      const row: UserKeyRow = {
        id: randomUUID(),
        user_id: userId,
        key_hash: hashPlatformKey(userKey),
        hint: maskPlatformKey(userKey),
        created_at: Date.now(),
        revoked_at: null,
      }
      await db.insertInto('platform_user_keys').values(row).execute()
      return { key: row, userKey }
    },
    async revoke(userId, keyId) {
      await db
        .updateTable('platform_user_keys')
        .set({ revoked_at: Date.now() })
        .where('user_id', '=', userId)
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .execute()
      return key(userId, keyId)
    },
  }
}
