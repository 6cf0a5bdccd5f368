import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { lockPath } from '../../src/config/paths.js'
import { BaseError } from '../../src/errors/index.js'

export type DataDirLock = {
  /** Records the API URL, so a second `parx serve` can say where the running one answers. */
  setUrl(url: string): void
  release(): void
}

export type Holder = { pid: number; url?: string }

/** Whether `pid` is a live node process (a stale lock's pid may have been reused by anything else). */
function isLiveParx(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    return /node|parx/.test(cmdline)
  } catch {
    return true
  }
}

/** The lock file's holder, read as untrusted: undefined unless it names a numeric pid. */
function readHolder(file: string): Holder | undefined {
  let holder: { pid?: unknown; url?: unknown }
  try {
    holder = JSON.parse(readFileSync(file, 'utf8')) as typeof holder
  } catch {
    return undefined
  }
  if (typeof holder?.pid !== 'number') return undefined
  return { pid: holder.pid, url: typeof holder.url === 'string' ? holder.url : undefined }
}

/**
 * The live `parx serve` holding the data dir, from its lock file: undefined when none runs (no
 * lock, or a stale one whose pid is gone or now another program's). `url` is absent while it starts.
 * `parx backup` asks this to choose between the running daemon and the files.
 */
export function lockHolder(dataDir: string): Holder | undefined {
  const holder = readHolder(lockPath(dataDir))
  return holder && isLiveParx(holder.pid) ? holder : undefined
}

/**
 * Takes the data dir for this process: one `parx serve` per data dir, since two would share
 * the store, the keys and the chain state (and the second would stop the first one's anvils).
 * The lock is a file created exclusively, holding the pid and URL; a lock whose pid is gone is
 * stale (the holder was killed) and is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockPath(dataDir)
  for (let attempt = 0; ; attempt++) {
    let fd: number
    try {
      fd = openSync(file, 'wx', 0o600)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw e
      const holder = lockHolder(dataDir)
      if (holder) {
        throw new BaseError(
          'DATA_DIR_IN_USE',
          `data dir ${dataDir} is in use by another parx serve (pid ` +
            `${holder.pid}${holder.url ? `, ${holder.url}` : ', still starting'}); ` +
            `stop it first or pass another --data-dir`,
        )
      }
      rmSync(file, { force: true })
      continue
    }
    const holder: Holder = { pid: process.pid }
    writeSync(fd, JSON.stringify(holder))
    closeSync(fd)
    let released = false
    return {
      setUrl(url) {
        if (!released) writeFileSync(file, JSON.stringify({ ...holder, url }), { mode: 0o600 })
      },
      release() {
        if (released) return
        released = true
        if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true })
      },
    }
  }
}
