import { chmodSync, lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Everything parx writes holds keys, payments or chain state, so it is created owner-only: the
 * process umask is set before anything is created, which also covers what the anvil children and
 * SQLite (-wal, -shm) create, whatever umask the user started us with.
 */
export const OWNER_ONLY_UMASK = 0o077

export function ownerOnlyUmask(): void {
  process.umask(OWNER_ONLY_UMASK)
}

/**
 * Tightens a directory parx owns and everything in it to owner-only (dirs 0700, files 0600), for
 * data dirs created before this rule or under a looser umask. Symlinks are left alone.
 */
export function tightenTree(dir: string): void {
  chmodSync(dir, 0o700)
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    const st = lstatSync(path)
    if (st.isSymbolicLink()) continue
    if (st.isDirectory()) tightenTree(path)
    else if ((st.mode & 0o077) !== 0) chmodSync(path, st.mode & 0o700)
  }
}
