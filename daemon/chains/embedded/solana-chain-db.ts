import { type ChainDb, prepareChainDb } from '../../solana-rpc/index.js'
import { openSqlite } from '../../store/sqlite.js'

/**
 * The embedded Solana cluster's tables on their own connection to `file` (parx.db), with the
 * settings of every parx connection to it (daemon/store/sqlite.ts: WAL, a busy timeout, checkpoints
 * in a worker thread), which the room itself leaves to its host.
 */
export function openChainDb(file: string): ChainDb {
  return prepareChainDb(openSqlite(file))
}
