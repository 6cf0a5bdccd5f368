import { copyFileSync, existsSync, renameSync } from 'node:fs'
import { Worker } from 'node:worker_threads'

/**
 * anvil writes its state file in place: a crash (or a kill -9 of the process group) while it is
 * writing leaves the file empty or cut short, and the chain cannot start again. So we keep the last
 * complete copy beside it (`<state>.good`): refreshed whenever anvil has written the file again
 * (it does every 2 s) and it parses whole. A start whose state file is broken falls back to that
 * copy; what the copy lacks that we had signed is replayed from the transaction outbox. With no
 * copy, the broken write was the chain's first (it had lived under one dump interval): it starts
 * empty, as if it had never written, and the deployments are made again.
 */
export type StateSnapshots = { stop(): void }

/** Whether a state file is complete JSON. Self-contained (fs from process.getBuiltinModule): the snapshot worker runs it too. */
function isWhole(path: string): boolean {
  try {
    const text = process.getBuiltinModule('node:fs').readFileSync(path, 'utf8')
    if (!text.trimEnd().endsWith('}')) return false
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** How often the last complete state is copied aside (anvil writes it every 2 s). */
export const SNAPSHOT_EVERY_MS = 10_000

/** Before anvil starts: a broken state file is replaced by the last complete copy, or refused by name. */
export function restoreBrokenState(statePath: string, warn: (message: string) => void): void {
  if (!existsSync(statePath) || isWhole(statePath)) return
  const good = `${statePath}.good`
  if (existsSync(good) && isWhole(good)) {
    copyFileSync(good, statePath)
    warn(`${statePath} was cut short (a crash while the chain was writing it); started from the last complete copy, ${good}; transactions we signed since then are replayed`)
    return
  }
  const aside = `${statePath}.broken-${Date.now()}`
  renameSync(statePath, aside)
  warn(`${statePath} was cut short by a crash during the chain's first write; moved to ${aside}, the chain starts empty`)
}

/**
 * One round: copies the state file to `<state>.good` (write, then rename) when it changed since
 * `copiedMtime` and parses whole; answers the mtime now copied. Self-contained but for isWhole
 * (its modules come from process.getBuiltinModule): both are the source of the worker thread below.
 */
function refreshSnapshot(statePath: string, copiedMtime: number): number {
  const fs = process.getBuiltinModule('node:fs')
  try {
    const mtime = fs.statSync(statePath).mtimeMs
    if (mtime === copiedMtime) return copiedMtime
    const tmp = `${statePath}.good.tmp`
    fs.copyFileSync(statePath, tmp)
    if (!isWhole(tmp)) return copiedMtime
    fs.renameSync(tmp, `${statePath}.good`)
    return mtime
  } catch {
    // No state yet, or a copy that raced a write: the next round tries again.
    return copiedMtime
  }
}

/**
 * While anvil runs: keeps `<state>.good` a recent complete state. The first copy is made at once;
 * later ones every `everyMs` in a worker thread, because the file grows with the chain (9 MB after
 * a few thousand payments): copying and parsing it at every dump (2 s) on the daemon's thread held
 * its event loop ~75 ms each time, and the copy doubled the chain's disk writes. The copy is only
 * used after a crash cut the state file short, and what we signed since it is replayed.
 */
export function keepStateSnapshots(statePath: string, everyMs = SNAPSHOT_EVERY_MS): StateSnapshots {
  const copied = refreshSnapshot(statePath, 0)
  const source = `
    const { workerData } = process.getBuiltinModule('node:worker_threads')
    ${isWhole.toString()}
    const refreshSnapshot = ${refreshSnapshot.toString()}
    let copied = workerData.copied
    setInterval(() => { copied = refreshSnapshot(workerData.statePath, copied) }, workerData.everyMs)
  `
  const worker = new Worker(source, { eval: true, workerData: { statePath, everyMs, copied } })
  worker.unref()
  return { stop: () => void worker.terminate() }
}
