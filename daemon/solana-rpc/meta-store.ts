import type { ChainDb } from './chain-db.js'

/** Small key/value facts of the embedded cluster (solana_meta), created once and then reused. */
export class MetaStore {
  private readonly getStmt
  private readonly setStmt

  constructor(db: ChainDb) {
    this.getStmt = db.prepare('SELECT value FROM solana_meta WHERE key = ?').pluck()
    this.setStmt = db.prepare(
      'INSERT INTO solana_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
  }

  get(key: string): string | undefined {
    return this.getStmt.get(key) as string | undefined
  }

  set(key: string, value: string): void {
    this.setStmt.run(key, value)
  }

  /** The stored value, or `create()`'s, stored now so every later start sees the same one. */
  getOrCreate(key: string, create: () => string): string {
    const found = this.get(key)
    if (found !== undefined) return found
    const value = create()
    this.set(key, value)
    return value
  }
}
