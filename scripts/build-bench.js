#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
// Compiles the benchmarks (bench/run.ts and what it imports from src/, daemon/ and test/helpers/)
// into one plain-JavaScript file, .bench-dist/run.js, that `npm run bench` runs with node alone.
// Under a TypeScript loader (tsx) every dynamic import() of the process is a round trip to the
// loader's hooks thread, loaded module or not: viem's signature recovery does one per call (~0.9 ms
// under tsx, 0.05 ms without), so the benchmark's own buyers and sellers (the official x402 packages)
// paid a cost no integrator's compiled server pays, on the same two cores as the daemon.
// Packages stay in node_modules; import.meta.url and import.meta.dirname keep naming each source
// file, so every path a bench builds (bin/parx.js, a reference script) is the one it builds under tsx.
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

const sourcePaths = {
  name: 'source-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (a) => {
      if (a.path.includes('/node_modules/')) return undefined
      const contents = readFileSync(a.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(a.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(a.path)))
      return { contents, loader: 'ts', resolveDir: dirname(a.path) }
    })
  },
}

await build({
  entryPoints: [join(root, 'bench', 'run.ts')],
  outfile: join(root, '.bench-dist', 'run.js'),
  bundle: true,
  packages: 'external',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [sourcePaths],
  banner: {
    js:
      "import { createRequire as __benchRequire } from 'node:module'; " +
      'const require = __benchRequire(import.meta.url);',
  },
  logLevel: 'warning',
})
