import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isBackupEntry } from '../../src/config/paths.js'

/**
 * A parx backup is one gzip'd tar (written with the `tar` package, readable with any tar):
 *
 *   parx-backup.json   this manifest: what each file is, its size and sha256
 *   parx.db            the SQLite store (better-sqlite3's online backup: one consistent copy),
 *                      which also holds the embedded Solana chain (its accounts and transactions)
 *   keys.json          the service keys, the operator token and the platform wallet key
 *   chains/NET.json    each embedded EVM chain's state (anvil's dump), taken before the store copy
 *
 * It holds private keys: keep it as safe as the data dir itself (it is written 0600).
 */
export const MANIFEST_FILE = 'parx-backup.json'
export const FORMAT = 'parx-backup'
export const FORMAT_VERSION = 1

export type BackupFile = { bytes: number; sha256: string }

export type BackupManifest = {
  format: typeof FORMAT
  version: typeof FORMAT_VERSION
  /** ISO time the copy was taken. */
  createdAt: string
  /** The parx version that wrote it. */
  parxVersion: string
  /**
   * `live`: taken from a running daemon through POST /api/operator/backup; `stopped`: from the files of a stopped one.
   */
  taken: 'live' | 'stopped'
  files: Record<string, BackupFile>
}

/** The only names a backup may hold (restore extracts nothing else). */
export const allowedEntry = (name: string) => name === MANIFEST_FILE || isBackupEntry(name)

export const describeFile = (path: string): BackupFile => {
  const bytes = readFileSync(path)
  return { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }
}
