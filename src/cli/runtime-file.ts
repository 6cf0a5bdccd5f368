import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/** Where a running `parx serve` says it is, so other commands find it without --api-url. */
export type RuntimeRecord = { apiUrl: string; dataDir: string; pid: number; profile: string; startedAt: number }

/**
 * The per-user runtime file: $PARX_RUNTIME_DIR, else $XDG_RUNTIME_DIR/parx (per-user tmpfs), else
 * $XDG_STATE_HOME/parx or ~/.local/state/parx. Its folder is 0700 and the file 0600.
 */
export function runtimeFilePath(env: NodeJS.ProcessEnv): string {
  const dir =
    env.PARX_RUNTIME_DIR ||
    (env.XDG_RUNTIME_DIR
      ? join(env.XDG_RUNTIME_DIR, 'parx')
      : join(env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state'), 'parx'))
  return join(dir, 'daemon.json')
}

/** Written when the daemon is ready; atomically (rename), created 0600 so it never has a wider mode. */
export function writeRuntimeFile(env: NodeJS.ProcessEnv, record: RuntimeRecord): string {
  const file = runtimeFilePath(env)
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 })
  renameSync(tmp, file)
  return file
}

/** Removed on stop, only if it is still ours (a later `parx serve` may have taken it over). */
export function removeRuntimeFile(env: NodeJS.ProcessEnv, pid = process.pid): void {
  const record = readRuntimeFile(env, { checkAlive: false })
  if (record?.pid === pid) rmSync(runtimeFilePath(env), { force: true })
}

/** The running daemon's record, or undefined when there is none or its process is gone. */
export function readRuntimeFile(env: NodeJS.ProcessEnv, opts = { checkAlive: true }): RuntimeRecord | undefined {
  let record: RuntimeRecord
  try {
    record = JSON.parse(readFileSync(runtimeFilePath(env), 'utf8')) as RuntimeRecord
  } catch {
    return undefined
  }
  if (typeof record?.apiUrl !== 'string' || typeof record.pid !== 'number') return undefined
  if (opts.checkAlive && !alive(record.pid)) return undefined
  return record
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}
