import type Sqlite from 'better-sqlite3'

/**
 * The embedded Solana cluster's own state, on a synchronous better-sqlite3 connection its host
 * opens and hands in (the daemon's is to `<data-dir>/parx.db`, the file the SQLite store uses too;
 * with a PostgreSQL store, parx.db holds only this). It is part of the embedded chain, not of the
 * service store: LiteSVM keeps everything in memory and these tables are what survives a restart.
 */
export type ChainDb = Sqlite.Database

/**
 * Creates (when missing) the cluster's tables on `db` and returns it. Idempotent: a data dir made by
 * 0.1 already has them. The connection's settings are the host's: the daemon's (WAL, a busy
 * timeout, checkpoints off the commit path) come from daemon/store/sqlite.ts.
 */
export function prepareChainDb(db: ChainDb): ChainDb {
  db.exec(schema)
  return db
}

const schema = `
-- Every account a processed transaction or our own setup wrote, as it is now. A closed account
-- (zero lamports) is deleted. lamports is TEXT because u64 does not fit SQLite's signed integer.
CREATE TABLE IF NOT EXISTS solana_accounts (
  address TEXT PRIMARY KEY,
  lamports TEXT NOT NULL,
  owner TEXT NOT NULL,
  executable INTEGER NOT NULL,
  data BLOB NOT NULL,
  slot INTEGER NOT NULL
);

-- Processed transactions, successful or failed-but-landed (fee charged). Rejected ones never land.
CREATE TABLE IF NOT EXISTS solana_transactions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  signature TEXT NOT NULL UNIQUE,
  slot INTEGER NOT NULL,
  block_time INTEGER NOT NULL,
  -- JSON TransactionError as the RPC renders it; NULL on success
  err TEXT,
  -- the wire transaction exactly as executed
  raw BLOB NOT NULL,
  -- JSON: fee, balances, token balances, logs, inner instructions, loaded addresses
  meta TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS solana_transactions_slot ON solana_transactions (slot);

-- Which transactions touched an address, for getSignaturesForAddress (newest first by tx_id).
CREATE TABLE IF NOT EXISTS solana_address_transactions (
  address TEXT NOT NULL,
  tx_id INTEGER NOT NULL REFERENCES solana_transactions (id),
  PRIMARY KEY (address, tx_id)
) WITHOUT ROWID;

-- Cluster identity and clock: genesis wall time, slot offset, blockhash seed, faucet seed.
CREATE TABLE IF NOT EXISTS solana_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`
