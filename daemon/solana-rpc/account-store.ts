import type { ChainDb } from './chain-db.js'
import type { AccountState } from './spl-token-state.js'

type Row = { address: string; lamports: string; owner: string; executable: number; data: Buffer }

/** Account state in SQLite: what a restarted cluster loads back into a fresh LiteSVM. */
export class AccountStore {
  private readonly upsert
  private readonly remove
  private readonly selectAll
  private readonly selectOne

  constructor(db: ChainDb) {
    this.upsert = db.prepare(`INSERT INTO solana_accounts (address, lamports, owner, executable, data, slot)
      VALUES (@address, @lamports, @owner, @executable, @data, @slot)
      ON CONFLICT (address) DO UPDATE SET lamports = excluded.lamports, owner = excluded.owner,
        executable = excluded.executable, data = excluded.data, slot = excluded.slot`)
    this.remove = db.prepare('DELETE FROM solana_accounts WHERE address = ?')
    this.selectAll = db.prepare('SELECT address, lamports, owner, executable, data FROM solana_accounts')
    this.selectOne = db.prepare(
      'SELECT address, lamports, owner, executable, data FROM solana_accounts WHERE address = ?',
    )
  }

  /** One account as saved, null when there is none. */
  get(address: string): AccountState | null {
    const row = this.selectOne.get(address) as Row | undefined
    return row ? stateOf(row) : null
  }

  /** Writes one account; `null` (closed) deletes it. Callers batch these in one SQLite transaction. */
  save(address: string, state: AccountState | null, slot: number): void {
    if (!state) {
      this.remove.run(address)
      return
    }
    this.upsert.run({
      address,
      lamports: state.lamports.toString(),
      owner: state.owner,
      executable: state.executable ? 1 : 0,
      data: Buffer.from(state.data),
      slot,
    })
  }

  *all(): Generator<{ address: string; state: AccountState }> {
    for (const row of this.selectAll.iterate() as IterableIterator<Row>) {
      yield { address: row.address, state: stateOf(row) }
    }
  }
}

const stateOf = (row: Row): AccountState => ({
  lamports: BigInt(row.lamports),
  owner: row.owner,
  executable: row.executable === 1,
  data: new Uint8Array(row.data),
})
