import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { inject } from 'vitest'

const run = promisify(execFile)
const repo = fileURLToPath(new URL('../..', import.meta.url))

export type Packed = {
  /** The tarball's path: read it, install it; never move or change it (another file uses it too). */
  tarball: string
  /** Every path the tarball holds, as `npm pack --json` lists them. */
  files: string[]
}

declare module 'vitest' {
  interface ProvidedContext {
    /** A directory for this run only (test/setup/pack-dir.ts): the one `npm pack` of the run lands there. */
    parxPackDir?: string
  }
}

let own: string | undefined

/** The run's directory; outside the sqlite project (no such globalSetup) one of this file's, removed when it exits. */
function packDir(): string {
  const run = inject('parxPackDir')
  if (run) return run
  if (!own) {
    const dir = (own = mkdtempSync(join(tmpdir(), 'parx-pack-')))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return own
}

/**
 * `npm pack` of this repository, once per test run: test/cli-install.test.ts and
 * test/sdk-package.test.ts both install the package as shipped, and packing took a build of its own
 * each time (`prepare`). dist/ is what this run's globalSetup built, so the pack skips `prepare`.
 * The two files may run at the same time in two workers: the first to take the lock packs, the
 * other waits for the tarball (or for the packer's error) to appear.
 */
export async function packedParx(): Promise<Packed> {
  const dir = packDir()
  const done = join(dir, 'packed.json')
  const failed = join(dir, 'failed.txt')
  let mine = false
  try {
    mkdirSync(join(dir, 'lock'))
    mine = true
  } catch {}
  if (mine) {
    try {
      const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
        cwd: repo,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      })
      const [p] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[]
      const packed: Packed = { tarball: join(dir, p!.filename), files: p!.files.map((f) => f.path) }
      // Written whole, then renamed: the waiting file never reads half of it.
      writeFileSync(`${done}.tmp`, JSON.stringify(packed))
      renameSync(`${done}.tmp`, done)
    } catch (e) {
      writeFileSync(failed, String((e as Error).stack ?? e))
      throw e
    }
  }
  for (;;) {
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as Packed
    if (existsSync(failed)) throw new Error(`npm pack failed in the other test file: ${readFileSync(failed, 'utf8')}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}
