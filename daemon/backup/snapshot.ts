import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Sqlite from 'better-sqlite3'
import { create as tarCreate } from 'tar'
import {
  chainStateFile,
  chainsDir,
  chainsEntry,
  dataDirNames,
  isChainStateFile,
  keyFilePath,
  storePath,
} from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'
import { type BackupManifest, describeFile, FORMAT, FORMAT_VERSION, MANIFEST_FILE } from './format.js'

export type SnapshotParameters = {
  dataDir: string
  /** The archive to write (.tar.gz); written beside as `.partial` and renamed, 0600. */
  file: string
  parxVersion: string
  /**
   * A running daemon's embedded EVM chains, dumped now (anvil_dumpState), by network key. Absent
   * (a stopped daemon): the state files in `chains/` are copied as they are.
   */
  dumpChains?: () => Promise<Record<string, Buffer>>
}

/**
 * Copies what a data dir needs to start again into one archive (./format.ts). The order is what
 * makes a live copy consistent: the chains first, the store after. Every transaction parx signs is
 * in the store's outbox before it is broadcast, so a store copied after the chains may know a
 * transaction the chain copy lacks, and the restored daemon's first outbox replay broadcasts it
 * again (the same recovery as after a crash); the other way round the chain would hold payments
 * the store never recorded. The embedded Solana chain lives in parx.db, so it is copied with the
 * store in the one consistent backup.
 */
export async function snapshotDataDir(p: SnapshotParameters): Promise<BackupManifest> {
  const db = storePath(p.dataDir)
  if (!existsSync(db))
    throw new BaseError(
      'BACKUP_UNSUPPORTED',
      `${db} does not exist: nothing to back up (is ${p.dataDir} a parx data dir, and is its store SQLite?)`,
    )
  const work = join(dirname(p.file), `.parx-backup-${process.pid}-${Date.now()}`)
  // The archive's tree is the data dir's own layout, built in `work`.
  const workChains = chainsDir(work)
  mkdirSync(workChains, { recursive: true, mode: 0o700 })
  try {
    const chains = chainsDir(p.dataDir)
    if (p.dumpChains) {
      for (const [network, state] of Object.entries(await p.dumpChains()))
        writeFileSync(join(workChains, chainStateFile(network)), state, { mode: 0o600 })
    } else if (existsSync(chains)) {
      // Only the state files: .tmp, .exit and .pid are a running chain's, and a stopped one adopted its exit dump.
      for (const f of readdirSync(chains)) if (isChainStateFile(f)) copyFileSync(join(chains, f), join(workChains, f))
    }
    await backupSqlite(db, storePath(work))
    if (existsSync(keyFilePath(p.dataDir))) copyFileSync(keyFilePath(p.dataDir), keyFilePath(work))
    const names = [
      dataDirNames.store,
      ...(existsSync(keyFilePath(work)) ? [dataDirNames.keys] : []),
      ...readdirSync(workChains).map((f) => chainsEntry(f)),
    ]
    const manifest: BackupManifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      createdAt: new Date().toISOString(),
      parxVersion: p.parxVersion,
      taken: p.dumpChains ? 'live' : 'stopped',
      files: Object.fromEntries(names.map((n) => [n, describeFile(join(work, n))])),
    }
    writeFileSync(join(work, MANIFEST_FILE), JSON.stringify(manifest, null, 2), { mode: 0o600 })
    const partial = `${p.file}.partial`
    // Created 0600 first: tar truncates and keeps the mode, so the keys are never readable by others.
    writeFileSync(partial, '', { mode: 0o600 })
    await tarCreate({ gzip: true, file: partial, cwd: work, portable: true }, [MANIFEST_FILE, ...names])
    renameSync(partial, p.file)
    return manifest
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

/**
 * SQLite's online backup API (better-sqlite3 `db.backup()`), from a connection of its own beside
 * the store's: it reads one consistent snapshot while the daemon goes on writing. All pages in
 * one step: copied page by page, a write by the daemon between two steps would start it over.
 */
async function backupSqlite(from: string, to: string): Promise<void> {
  const src = new Sqlite(from, { readonly: true, fileMustExist: true })
  try {
    await src.backup(to, { progress: () => 1 << 30 })
  } finally {
    src.close()
  }
}
