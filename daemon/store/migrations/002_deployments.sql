-- What the daemon deployed or created on each embedded chain, so a restart reuses it.
CREATE TABLE deployments (
  network TEXT NOT NULL,
  name TEXT NOT NULL,
  address TEXT NOT NULL,
  PRIMARY KEY (network, name)
);
