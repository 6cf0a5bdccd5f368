-- x402 settlements: one row per attempt to settle an authorization. A row is written (pending)
-- before anything is broadcast and finished (settled or failed) before /settle answers, so a
-- second /settle of the same authorization, concurrent or later, finds it and never pays twice.
CREATE TABLE x402_settlements (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- what makes the authorization unique on chain: network, asset, payer and nonce (see replay keys)
  auth_key TEXT NOT NULL,
  network TEXT NOT NULL,
  method TEXT NOT NULL,
  payer TEXT,
  pay_to TEXT NOT NULL,
  asset TEXT NOT NULL,
  -- base units, as a decimal string (u256 does not fit an integer column)
  amount TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'settled', 'failed')),
  tx TEXT,
  reason TEXT,
  message TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
-- At most one live (pending or settled) row per authorization: the insert that wins is the settle
-- that runs. Failed attempts stay as history and do not block a retry.
CREATE UNIQUE INDEX x402_settlements_live ON x402_settlements (auth_key) WHERE state IN ('pending', 'settled');
CREATE INDEX x402_settlements_pending ON x402_settlements (state) WHERE state = 'pending';
