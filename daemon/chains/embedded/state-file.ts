import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'

/**
 * The embedded chain's state file (`chains/<network>.json`) and what anvil writes beside it.
 *
 * parx writes the state file itself, whole and then renamed into place (./state-dumper.ts), so it
 * is never cut short. anvil writes only on its way out (SIGTERM from a clean stop, or the kernel's
 * parent-death signal when the daemon died), to `<state>.exit`, in place: a kill during that write
 * cuts it short. So the exit dump is taken over the state file only when it is whole and newer.
 */

/** Whether a state file is complete JSON. */
export function isWhole(path: string): boolean {
  try {
    const text = readFileSync(path, 'utf8')
    if (!text.trimEnd().endsWith('}')) return false
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export const exitDumpOf = (statePath: string) => `${statePath}.exit`

/**
 * After anvil stopped, or before it starts again: anvil's exit dump replaces the state file when it
 * is whole and newer (it holds what happened after parx's last write); otherwise it is dropped.
 */
export function adoptExitDump(statePath: string, warn: (message: string) => void): void {
  const exit = exitDumpOf(statePath)
  if (!existsSync(exit)) return
  const newer = !existsSync(statePath) || statSync(exit).mtimeMs >= statSync(statePath).mtimeMs
  if (newer && isWhole(exit)) {
    renameSync(exit, statePath)
    return
  }
  if (newer) warn(`${exit} was cut short (the chain was killed while writing it on its way out); the chain starts from ${statePath}, and transactions we signed since then are replayed`)
  rmSync(exit, { force: true })
}

/**
 * Before anvil starts: a broken state file (cut short by a crash while an earlier release let anvil
 * write it in place) is replaced by that release's last complete copy, `<state>.good`, or moved
 * aside by name so the chain starts empty. Files parx writes are never broken.
 */
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
