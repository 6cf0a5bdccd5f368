import { mkdtempSync, readFileSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const shm = '/dev/shm'
// The two installing files may hold a tree each at once (about 0.8 GB apiece), with room to spare.
const room = 4 * 1024 ** 3

/**
 * A fresh directory for a whole installed dependency tree (test/cli-install.test.ts,
 * test/sdk-package.test.ts): on the machine's tmpfs (/dev/shm) where it allows executables and has
 * room, else in tmpdir(). The test machines' disk is ext4 mounted with `discard`, so every deleted
 * file is trimmed: with other work on the machine, npm unpacked the package's ~760 dependencies
 * there in 70-107 s and removing the tree took 66-142 s, in memory 48 s and 2 s. npm, the install
 * scripts and the installed bin run the same on either.
 */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(inMemory() ? shm : tmpdir(), prefix))
}

function inMemory(): boolean {
  try {
    const mount = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[1] === shm)
    if (mount?.[2] !== 'tmpfs' || mount[3]?.split(',').includes('noexec')) return false
    const { bavail, bsize } = statfsSync(shm)
    return bavail * bsize >= room
  } catch {
    return false
  }
}
