import { Command } from 'commander'
import { emit, label, type CliContext } from '../context.js'
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
  const { existsSync, readFileSync, renameSync, copyFileSync, rmSync, statSync } = await import('node:fs')
  const { join, resolve } = await import('node:path')
  const { defaultDataDir } = await import('../../config/paths.js')
  const { readRuntimeFile } = await import('../runtime-file.js')
  const to = resolve(opts.to)
  if (existsSync(to)) throw usageError(`--to ${opts.to} exists already; pass a new file name (a backup never overwrites one)`)
  const dataDir = resolve(opts.dataDir ?? ctx.env.PARX_DATA_DIR ?? readRuntimeFile(ctx.env)?.dataDir ?? defaultDataDir('local', ctx.env))
  if (!existsSync(join(dataDir, 'parx.db'))) throw usageError(`${dataDir} holds no parx.db: pass the data dir of a parx daemon with a SQLite store (--data-dir); a PostgreSQL store is backed up with pg_dump (docs/operations.md "Backups")`)
  const holder = lockHolder(readFileSync, join(dataDir, 'parx.lock'))
  let result: BackupResult
  if (holder?.url) {
    const { callDaemon } = await import('../daemon-call.js')
    const { resolveOperatorToken } = await import('../operator-token.js')
    const token = resolveOperatorToken({ operatorToken: opts.operatorToken, dataDir }, ctx.env)
    const r = await callDaemon<{ file: string; bytes: number; manifest: { files: Record<string, unknown> } }>({ apiUrl: holder.url }, '/api/operator/backup', { method: 'POST', body: {}, headers: { authorization: `Bearer ${token}` } })
    try {
      renameSync(r.file, to)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e
      copyFileSync(r.file, to)
      rmSync(r.file)
    }
    result = { file: to, bytes: r.bytes, taken: 'live', dataDir, files: Object.keys(r.manifest.files) }
  } else {
    if (holder) throw usageError(`the daemon of ${dataDir} (pid ${holder.pid}) is still starting; run parx backup again once it is ready`)
    // Stopped: hold the data dir's lock so no `parx serve` starts on it while the files are copied.
    const { lockDataDir } = await import('../../../daemon/startup/lock.js')
    const { snapshotDataDir } = await import('../../../daemon/backup/snapshot.js')
    const { packageVersion } = await import('../package-root.js')
    const lock = lockDataDir(dataDir)
    try {
      const m = await snapshotDataDir({ dataDir, file: to, parxVersion: packageVersion() })
      result = { file: to, bytes: statSync(to).size, taken: 'stopped', dataDir, files: Object.keys(m.files) }
    } finally {
      lock.release()
    }
  }
  emit(ctx, result, () => [
    `${label(ctx, 'backup')}${result.file} (${result.bytes} bytes, 0600: it holds the keys)`,
    `${label(ctx, 'of')}${result.dataDir} (${result.taken === 'live' ? 'taken from the running daemon' : 'daemon stopped'})`,
    `${label(ctx, 'files')}${result.files.join(', ')}`,
    `Restore with: parx restore --from ${result.file} --data-dir NEW_DIR`,
  ])
  return result
}

/** The live daemon holding the data dir, from its lock file (daemon/startup/lock.ts); undefined when none runs. */
function lockHolder(read: (p: string, enc: 'utf8') => string, file: string): { pid: number; url?: string } | undefined {
  let holder: { pid?: unknown; url?: unknown }
  try {
    holder = JSON.parse(read(file, 'utf8')) as typeof holder
  } catch {
    return undefined
  }
  if (typeof holder.pid !== 'number') return undefined
  try {
    process.kill(holder.pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return undefined
  }
  return { pid: holder.pid, url: typeof holder.url === 'string' ? holder.url : undefined }
}

export function define(ctx: () => CliContext): Command {
  return new Command('backup')
    .description('copy a data dir (SQLite store, embedded chain states, keys) into one file, from a running or stopped daemon')
    .requiredOption('--to <file>', 'the backup file to write (.tar.gz; must not exist)')
    .option('--data-dir <dir>', 'the data dir to back up (default PARX_DATA_DIR, the running `parx serve`, or the local default)')
    .option('--operator-token <token>', 'operator token of a running daemon (default: read from the data dir)')
    .action(async (opts: BackupOptions) => void (await run(opts, ctx())))
}
