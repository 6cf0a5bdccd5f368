-- Partner API keys: only the sha256 of the secret is kept.
CREATE TABLE partner_keys (
  id TEXT PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  -- first characters of the key, so a user can tell keys apart in a list
  hint TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT,
  owner TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'deactivated', 'deleted')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX partner_keys_owner ON partner_keys (owner);
