import { copyFileSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs'

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

const isWhole = (path: string): boolean => {
  try {
    const text = readFileSync(path, 'utf8')
    if (!text.trimEnd().endsWith('}')) return false
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

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

/** While anvil runs: copies a changed, complete state file to `<state>.good` (write, then rename). */
export function keepStateSnapshots(statePath: string, everyMs = 200): StateSnapshots {
  let copiedMtime = 0
  const refresh = () => {
    try {
      const mtime = statSync(statePath).mtimeMs
      if (mtime === copiedMtime) return
      const tmp = `${statePath}.good.tmp`
      copyFileSync(statePath, tmp)
      if (!isWhole(tmp)) return
      renameSync(tmp, `${statePath}.good`)
      copiedMtime = mtime
    } catch {
      // No state yet, or a copy that raced a write: the next round tries again.
    }
  }
  refresh()
  const timer = setInterval(refresh, everyMs)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
