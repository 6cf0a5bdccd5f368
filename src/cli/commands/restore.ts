import { Command } from 'commander'
import { type CliContext, emit, label } from '../context.js'

export type RestoreOptions = { from: string; dataDir: string }
export type RestoreResult = { dataDir: string; createdAt: string; taken: string; files: string[] }

/**
 * Unpacks a `parx backup` file into a new or empty data dir (a non-empty one is refused with
 * DATA_DIR_NOT_EMPTY and left as it was); `parx serve --data-dir` then starts from it, replaying
 * any transaction the store knows and the chain copy lacks (docs/operations.md "Backups").
 */
export async function run(opts: RestoreOptions, ctx: CliContext): Promise<RestoreResult> {
  const { resolve } = await import('node:path')
  const { restoreDataDir } = await import('../../../daemon/entry.js')
  const dataDir = resolve(opts.dataDir)
  const m = await restoreDataDir({ file: resolve(opts.from), dataDir })
  const result: RestoreResult = { dataDir, createdAt: m.createdAt, taken: m.taken, files: Object.keys(m.files) }
  emit(ctx, result, () => [
    `${label(ctx, 'restored')}${dataDir}`,
    `${label(ctx, 'backup of')}${m.createdAt} (parx ${m.parxVersion}, ` +
      `${m.taken === 'live' ? 'from a running daemon' : 'daemon stopped'})`,
    `${label(ctx, 'files')}${result.files.join(', ')}`,
    `Start it with: parx serve --data-dir ${dataDir}`,
  ])
  return result
}

export function define(ctx: () => CliContext): Command {
  return new Command('restore')
    .description('restore a `parx backup` file into a new or empty data dir')
    .requiredOption('--from <file>', 'the backup file')
    .requiredOption('--data-dir <dir>', 'the data dir to create (new or empty)')
    .action(async (opts: RestoreOptions) => void (await run(opts, ctx())))
}
