import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { backupsDir } from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { BackupManifest } from './format.js'

/** What POST /api/operator/backup answers: where in the data dir the archive was written. */
export type BackupResult = { file: string; bytes: number; manifest: BackupManifest }

export type BackupService = { create(): Promise<BackupResult> }

export type BackupServiceParameters = {
  dataDir: string
  /** A PostgreSQL store is backed up with pg_dump (docs/operations.md "Backups"). */
  sqlite: boolean
  /** The embedded EVM chains (anvil), whose state is dumped into the backup; none off the local profile. */
  embedded: Record<string, EvmChain>
  parxVersion: string
}

/**
 * Backups of a running daemon (`parx backup` calls this when the data dir's daemon is up). The
 * archive is written inside the data dir (`backups/`), never to a path named over HTTP, and the
 * CLI, on the same machine, moves it to `--to`: the keys never cross the wire.
 * One at a time: a second call waits for the first.
 */
export function backupService(p: BackupServiceParameters): BackupService {
  let last: Promise<unknown> = Promise.resolve()
  const dumpChains = async () => {
    const out: Record<string, Buffer> = {}
    for (const [network, chain] of Object.entries(p.embedded)) {
      // anvil_dumpState: the whole state now, gzip'd and hex-encoded; the state file is its JSON.
      const hex = (await chain.client.request({ method: 'anvil_dumpState' as 'eth_chainId' })) as unknown as string
      out[network] = gunzipSync(Buffer.from(hex.slice(2), 'hex'))
    }
    return out
  }
  return {
    create() {
      if (!p.sqlite) {
        return Promise.reject(
          new BaseError(
            'BACKUP_UNSUPPORTED',
            'this daemon runs on a PostgreSQL store: back it up with pg_dump, ' +
              'and keep the keys and config beside it (docs/operations.md "Backups")',
          ),
        )
      }
      const run = last.then(async () => {
        const dir = backupsDir(p.dataDir)
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        const file = join(dir, `parx-backup-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`)
        // tar loads with the first backup, not at start.
        const { snapshotDataDir } = await import('./snapshot.js')
        const manifest = await snapshotDataDir({ dataDir: p.dataDir, file, parxVersion: p.parxVersion, dumpChains })
        return { file, bytes: statSync(file).size, manifest }
      })
      last = run.catch(() => {})
      return run
    },
  }
}
