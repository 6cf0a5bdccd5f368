import { chmodSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Everything parx writes holds keys, payments or chain state, so it is created owner-only: the
 * process umask is set before anything is created, which also covers what the anvil children and
 * SQLite (-wal, -shm) create, whatever umask the user started us with.
 */
export const OWNER_ONLY_UMASK = 0o077

/** Daemons of this process holding the umask now, and the umask found before the first of them. */
let holders = 0
let found = 0

/**
 * Sets the owner-only umask for as long as a daemon runs, and returns what gives it back. The umask
 * is the whole process's: a process that embeds daemons (a test, a benchmark, a server of its own)
 * gets its own back once the last one stops, so a later child of it (initdb running as another
 * user, reading a file we wrote) is not refused for our rule. The CLI sets the owner-only umask for
 * its whole run (src/cli/main.ts), so `parx serve` finds it and keeps it. Releasing twice is a no-op.
 *
 * @example
 * const release = ownerOnlyUmask()
 * try { ... create the data dir ... } finally { release() }
 */
export function ownerOnlyUmask(): () => void {
  const previous = process.umask(OWNER_ONLY_UMASK)
  if (holders++ === 0) found = previous
  let held = true
  return () => {
    if (!held) return
    held = false
    if (--holders === 0) process.umask(found)
  }
}

/**
 * ENOENT: the entry went away during the walk (a daemon just stopped removes parx.db-wal as its last connection
 * closes).
 */
const gone = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT'

/**
 * Tightens a directory parx owns and everything in it to owner-only (dirs 0700, files 0600), for
 * data dirs created before this rule or under a looser umask. Symlinks are left alone, and so is
 * an entry that is gone by the time it is looked at: nothing is left to tighten.
 * `list`: the directory's entries (a test lists one that is not there).
 */
export function tightenTree(dir: string, list: (dir: string) => string[] = readdirSync): void {
  chmodSync(dir, 0o700)
  for (const entry of list(dir)) {
    const path = join(dir, entry)
    const st = lstatSync(path, { throwIfNoEntry: false })
    if (!st || st.isSymbolicLink()) continue
    try {
      if (st.isDirectory()) tightenTree(path, list)
      else if ((st.mode & 0o077) !== 0) chmodSync(path, st.mode & 0o700)
    } catch (e) {
      if (!gone(e)) throw e
    }
  }
}
