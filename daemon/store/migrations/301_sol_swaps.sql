-- Solana swaps the daemon built and co-signed (POST /api/sol/swap, /api/sol/redeem). The solver
-- signs before the user submits, so a row is written when the transaction is handed out and
-- follows it: built -> confirmed | failed (landed, fee paid) | expired (blockhash passed unsubmitted).
-- While `built` and unexpired, out_amount is promised from the solver's inventory (a reservation).
CREATE TABLE sol_swaps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- the fee payer's (solver's) signature: the transaction id, known before the user signs
  signature TEXT NOT NULL UNIQUE,
  network TEXT NOT NULL,
  kind TEXT NOT NULL,
  user TEXT NOT NULL,
  in_symbol TEXT NOT NULL,
  out_symbol TEXT NOT NULL,
  out_mint TEXT NOT NULL,
  -- base units as decimal strings: u64 does not fit SQLite's signed integer
  in_amount TEXT NOT NULL,
  out_amount TEXT NOT NULL,
  blockhash TEXT NOT NULL,
  last_valid_block_height INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('built', 'confirmed', 'failed', 'expired')),
  slot INTEGER,
  -- JSON TransactionError when failed
  err TEXT,
  -- order in which rows left 'built' (1, 2, ...): a build that read balances before a row settled
  -- still counts that row as reserved, so settling never over-states the solver's inventory
  settled_seq INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX sol_swaps_open ON sol_swaps (status, out_mint);
CREATE INDEX sol_swaps_settled ON sol_swaps (settled_seq);
