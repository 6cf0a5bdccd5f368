import type { ResolvedConfig } from '../../src/config/load.js'
import { storePath } from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'
import { portError } from './ports.js'

/**
 * A start-up failure as the one-line message a user can act on: the store, a port, the data
 * dir. BaseErrors already are; other known failures are named here; anything else stays as it is
 * (a bug, shown with its stack).
 */
export function startupError(e: unknown, config: Pick<ResolvedConfig, 'dataDir' | 'host'>): unknown {
  if (e instanceof BaseError) return e
  const err = e as NodeJS.ErrnoException & { port?: number; address?: string }
  if ((typeof err?.code === 'string' && err.code.startsWith('SQLITE_')) || err?.name === 'SqliteError') {
    return new BaseError(
      'STORE_UNREADABLE',
      `${storePath(config.dataDir)} cannot be read (${err.message}); move ` +
        `it away to start with an empty store, or restore it from a backup`,
      { cause: e },
    )
  }
  if (err?.code === 'EADDRINUSE' || err?.code === 'EADDRNOTAVAIL') {
    return portError(err, err.address ?? config.host, err.port ?? 0, 'an embedded chain')
  }
  if ((err?.code === 'EACCES' || err?.code === 'EROFS' || err?.code === 'ENOSPC') && err.path) {
    return new BaseError(
      'DATA_DIR_UNUSABLE',
      `cannot write ${err.path} (${err.code}); check the data dir ${config.dataDir} or pass another --data-dir`,
      { cause: e },
    )
  }
  return e
}
