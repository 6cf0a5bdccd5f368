import type { Store } from '../store/store.js'
import type { SpendRow } from './spends.js'

/** An agent's most recent spends (pay, send, swap), newest first, as the ledger holds them. */
export function recentSpends(store: Store, agentId: string, limit = 20): Promise<SpendRow[]> {
  return store.db.selectFrom('platform_spends').selectAll().where('agent_id', '=', agentId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}
