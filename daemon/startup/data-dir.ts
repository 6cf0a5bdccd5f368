import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DATA_DIR_ENTRIES, dataDirNames, MARKER_TEXT, markerPath } from '../../src/config/paths.js'
import { BaseError, UsageError } from '../../src/errors/index.js'
import { type DataDirLock, lockDataDir } from './lock.js'
import { tightenTree } from './owner-only.js'

// `--fresh` deletes only a directory that carries the marker; one made before the marker existed
// is adopted only when it holds nothing but what parx writes (DATA_DIR_ENTRIES).
const MARKER_FILE = dataDirNames.marker

/**
 * Makes the data dir ready before anything else touches it, in this order: the path is a
 * directory parx may use (created, owner-only and marked when missing), it is writable, this
 * process holds its lock, and only then does `--fresh` empty it. Every refusal names the path and
 * what to do.
 */
export function prepareDataDir(dataDir: string, opts: { fresh: boolean }): DataDirLock {
  const exists = existsSync(dataDir)
  if (exists && !statSync(dataDir).isDirectory()) {
    throw new UsageError(
      'DATA_DIR_UNUSABLE',
      `--data-dir ${dataDir} is not a directory (it is a file); pass a directory path`,
    )
  }
  try {
    if (!exists) mkdirSync(dataDir, { recursive: true, mode: 0o700 })
    const entries = readdirSync(dataDir)
    const ours = entries.includes(MARKER_FILE) || entries.every((e) => DATA_DIR_ENTRIES.includes(e))
    if (!ours) {
      throw new UsageError(
        'DATA_DIR_UNUSABLE',
        `--data-dir ${dataDir} is not a parx data dir (it holds other ` +
          `files and no ${MARKER_FILE}); pass an empty or new directory`,
      )
    }
    writeFileSync(markerPath(dataDir), MARKER_TEXT, { mode: 0o600 })
  } catch (e) {
    throw unusable(dataDir, e)
  }
  let lock: DataDirLock
  try {
    lock = lockDataDir(dataDir)
  } catch (e) {
    throw unusable(dataDir, e)
  }
  try {
    if (opts.fresh) {
      for (const entry of readdirSync(dataDir))
        if (entry !== dataDirNames.lock && entry !== MARKER_FILE)
          rmSync(join(dataDir, entry), { recursive: true, force: true })
    }
    tightenTree(dataDir)
  } catch (e) {
    lock.release()
    throw unusable(dataDir, e)
  }
  return lock
}

function unusable(dataDir: string, e: unknown): unknown {
  if (e instanceof BaseError) return e
  const code = (e as NodeJS.ErrnoException).code
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new BaseError(
      'DATA_DIR_UNUSABLE',
      `data dir ${dataDir} is not writable (${code}); fix its permissions or pass another --data-dir`,
      { cause: e },
    )
  }
  if (code === 'ENOTDIR')
    return new UsageError(
      'DATA_DIR_UNUSABLE',
      `--data-dir ${dataDir}: a part of the path is a file, not a directory; pass a directory path`,
      { cause: e },
    )
  return new BaseError(
    'DATA_DIR_UNUSABLE',
    `data dir ${dataDir} cannot be used (${code ?? (e as Error).message}); check it or pass another --data-dir`,
    { cause: e },
  )
}
