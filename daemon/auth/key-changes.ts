import { sql } from 'kysely'
import { pgListener } from '../store/pg-listener.js'
import type { Store } from '../store/store.js'

/** The PostgreSQL channel replicas announce partner key changes on (the payload is the key's hash). */
export const KEY_CHANGES_CHANNEL = 'parx_partner_key_changes'

/**
 * Partner key changes across replicas sharing a PostgreSQL store. Each replica caches key
 * verdicts (daemon/auth/verdict-cache.ts); without this, another replica would honour a
 * deactivated key until its cached verdict expires (docs/swap-api.md "Authentication": within 5 minutes). A change is
 * announced with NOTIFY after it is written; every replica LISTENs on a dedicated connection and
 * forgets that key's verdict. While the connection is down the TTLs still bound staleness, and on
 * reconnecting every verdict is dropped, since announcements made meanwhile were missed.
 */
export type KeyChanges = {
  /** Announces a change of the key with this hash to every replica (this one included). */
  publish(keyHash: string): Promise<void>
  stop(): Promise<void>
}

export type KeyChangesParameters = {
  url: string
  store: Store
  /** Drop one verdict (a key's hash) or, with no argument, all of them. */
  forget(keyHash?: string): void
  onError?(e: Error): void
  retryMs?: number
}

export function postgresKeyChanges(p: KeyChangesParameters): KeyChanges {
  const listener = pgListener({
    url: p.url,
    channel: KEY_CHANGES_CHANNEL,
    onError: p.onError,
    retryMs: p.retryMs,
    onNotify: (keyHash) => {
      if (keyHash) p.forget(keyHash)
    },
    // What was announced while we were not listening is unknown: start from the store again.
    onListening: () => p.forget(),
  })
  return {
    async publish(keyHash) {
      await sql`SELECT pg_notify(${KEY_CHANGES_CHANNEL}, ${keyHash})`.execute(p.store.db)
    },
    stop: () => listener.stop(),
  }
}
