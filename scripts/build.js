#!/usr/bin/env node
// Compiles the CLI and the daemon into dist/ (run by `npm install` through `prepare`, and before tests).
// One ESM bundle of our own sources only: npm packages stay external and load from node_modules.
// Code splitting turns every dynamic import() into its own chunk, so a command loads only what it uses.
import { build } from 'esbuild'
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dist = join(root, 'dist')
// Built beside and swapped in at the end, so a concurrent run (two test runs) never sees half a dist/.
const staging = join(root, `.dist-${process.pid}`)

rmSync(staging, { recursive: true, force: true })
const result = await build({
  absWorkingDir: root,
  entryPoints: { parx: 'src/cli/main.ts' },
  outdir: staging,
  // Chunks sit beside the entry, so a module's dirname(import.meta.url) is dist/ wherever its code lands.
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
})

// Files read at run time relative to the module that reads them, copied to where that module now is.
// contracts/solana/programs.ts reads build/<program>.so beside itself.
const programs = join(root, 'contracts', 'solana', 'build')
mkdirSync(join(staging, 'build'))
for (const f of readdirSync(programs).filter((f) => f.endsWith('.so'))) copyFileSync(join(programs, f), join(staging, 'build', f))

// What each output imports, statically or lazily: test/cli-build.test.ts reads it (paths as dist/...).
writeFileSync(join(staging, 'meta.json'), JSON.stringify(result.metafile).replaceAll(`${basename(staging)}/`, 'dist/'))
// Another build may swap its dist/ in between: retry the swap a few times.
for (let attempt = 1; ; attempt++) {
  rmSync(dist, { recursive: true, force: true })
  try {
    renameSync(staging, dist)
    break
  } catch (e) {
    if (attempt === 5 || !['ENOTEMPTY', 'EEXIST'].includes(e.code)) throw e
  }
}
