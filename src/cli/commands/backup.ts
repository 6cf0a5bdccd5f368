import { Command } from 'commander'
import { type CliContext, emit, label } from '../context.js'
import { usageError } from '../errors.js'

export type BackupOptions = { to: string; dataDir?: string; operatorToken?: string }
export type BackupResult = { file: string; bytes: number; taken: 'live' | 'stopped'; dataDir: string; files: string[] }

/**
 * One file holding what a data dir needs to start again: the SQLite store, the embedded chains'
 * states and the keys (daemon/backup/format.ts). With the data dir's daemon running, the daemon
 * takes the copy (POST /api/operator/backup: chains dumped first, then SQLite's online backup) and
 * this moves it to --to; with it stopped, the files are copied under the data dir's lock.
 */
export async function run(opts: BackupOptions, ctx: CliContext): Promise<BackupResult> {
  const { existsSync, renameSync, copyFileSync, rmSync, statSync } = await import('node:fs')
  const { resolve } = await import('node:path')
  const { defaultDataDir, storePath } = await import('../../config/paths.js')
  const daemon = await import('../../../daemon/entry.js')
  const { readRuntimeFile } = await import('../runtime-file.js')
  const to = resolve(opts.to)
  if (existsSync(to))
    throw usageError(`--to ${opts.to} exists already; pass a new file name (a backup never overwrites one)`)
  const dataDir = resolve(
    opts.dataDir ?? ctx.env.PARX_DATA_DIR ?? readRuntimeFile(ctx.env)?.dataDir ?? defaultDataDir('local', ctx.env),
  )
  if (!existsSync(storePath(dataDir)))
    throw usageError(
      `${dataDir} holds no parx.db: pass the data dir of a parx daemon with a SQLite store ` +
        `(--data-dir); a PostgreSQL store is backed up with pg_dump (docs/operations.md "Backups")`,
    )
  const holder = await daemon.lockHolder(dataDir)
  let result: BackupResult
  if (holder?.url) {
    const { callDaemon } = await import('../daemon-call.js')
    const { resolveOperatorToken } = await import('../operator-token.js')
    const token = resolveOperatorToken({ operatorToken: opts.operatorToken, dataDir }, ctx.env)
    const r = await callDaemon<{ file: string; bytes: number; manifest: { files: Record<string, unknown> } }>(
      { apiUrl: holder.url },
      '/api/operator/backup',
      { method: 'POST', body: {}, headers: { authorization: `Bearer ${token}` } },
    )
    try {
      renameSync(r.file, to)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e
      copyFileSync(r.file, to)
      rmSync(r.file)
    }
    result = { file: to, bytes: r.bytes, taken: 'live', dataDir, files: Object.keys(r.manifest.files) }
  } else {
    if (holder)
      throw usageError(
        `the daemon of ${dataDir} (pid ${holder.pid}) is still starting; run parx backup again once it is ready`,
      )
    // Stopped: hold the data dir's lock so no `parx serve` starts on it while the files are copied.
    const { packageVersion } = await import('../../config/package-root.js')
    const lock = await daemon.lockDataDir(dataDir)
    try {
      const m = await daemon.snapshotDataDir({ dataDir, file: to, parxVersion: packageVersion() })
      result = { file: to, bytes: statSync(to).size, taken: 'stopped', dataDir, files: Object.keys(m.files) }
    } finally {
      lock.release()
    }
  }
  emit(ctx, result, () => [
    `${label(ctx, 'backup')}${result.file} (${result.bytes} bytes, 0600: it holds the keys)`,
    `${label(ctx, 'of')}${result.dataDir} ` +
      `(${result.taken === 'live' ? 'taken from the running daemon' : 'daemon stopped'})`,
    `${label(ctx, 'files')}${result.files.join(', ')}`,
    `Restore with: parx restore --from ${result.file} --data-dir NEW_DIR`,
  ])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('backup')
    .description(
      'copy a data dir (SQLite store, embedded chain states, keys) into one file, from a running or stopped daemon',
    )
    .requiredOption('--to <file>', 'the backup file to write (.tar.gz; must not exist)')
    .option(
      '--data-dir <dir>',
      'the data dir to back up (default PARX_DATA_DIR, the running `parx serve`, or the local default)',
    )
    .option('--operator-token <token>', 'operator token of a running daemon (default: read from the data dir)')
    .action(async (opts: BackupOptions) => void (await run(opts, ctx())))
}
