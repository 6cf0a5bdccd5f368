import { execFile } from 'node:child_process'
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { packedParx } from './helpers/pack.js'
import { scratchDir } from './helpers/scratch.js'

/**
 * The SDK as a developer gets it: `npm pack` of this repository (dist/ as globalSetup built it; the run's one pack),
 * installed from the tarball into a project of its own outside the repository, its example
 * type-checked by tsc against the package's declarations and run by plain Node against a daemon.
 * Nothing here reaches into src/: a missing `exports` entry, a declaration the build did not emit
 * or a runtime import of a devDependency fails it.
 */
const run = promisify(execFile)
const repo = fileURLToPath(new URL('..', import.meta.url))
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } })
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc')

// Every entry of package.json's exports, type-checked and loaded. The @ts-expect-error lines fail
// tsc if an entry's types resolve to `any` (a declaration missing from the tarball does that).
const entries = `import { createSwapClient } from 'parx/swap'
import { createXchainClient } from 'parx/xchain'
import { createPlatformClient } from 'parx/platform'
import { facilitatorClient, paymentGate, wrapFetchWithPayment } from 'parx/x402'
import { ApiError, BaseError } from 'parx/errors'

export function refusedByTypes(): void {
  // @ts-expect-error an account and the API URL are required
  createSwapClient({})
  // @ts-expect-error the API URL is required
  createXchainClient({ apiKey: 'k' })
  // @ts-expect-error the platform URL is required
  createPlatformClient({})
  // @ts-expect-error the facilitator URL is required
  facilitatorClient({})
  // @ts-expect-error facilitator and routes are required
  paymentGate({})
  // @ts-expect-error the fetch to wrap comes first
  wrapFetchWithPayment({})
}

console.log([createSwapClient, createXchainClient, createPlatformClient, facilitatorClient, paymentGate, wrapFetchWithPayment].map((f) => typeof f).join(' '))
// One error family across entries: what parx/platform throws is parx/errors' class, with its code.
const url = process.env.PARX_URL ?? ''
const noKey = await createPlatformClient({ url }).whoamiUser({}).catch((e: unknown) => e)
const refused = await createPlatformClient({ url, userKey: 'not-a-key' }).whoamiUser({}).catch((e: unknown) => e)
console.log(noKey instanceof BaseError && noKey.code, refused instanceof ApiError && refused.code)
`

let d: TestDaemon
let project: string
beforeAll(async () => {
  // A whole node_modules: in memory where the machine allows (test/helpers/scratch.ts says why).
  project = scratchDir('parx-sdk-package-')
  const [daemon] = await Promise.all([
    startTestDaemon(),
    (async () => {
      // The run's one pack (test/helpers/pack.ts), copied in: a file: dependency is recorded by path.
      const { tarball } = await packedParx()
      copyFileSync(tarball, join(project, basename(tarball)))
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({
          name: 'parx-sdk-consumer',
          private: true,
          type: 'module',
          dependencies: { parx: `file:./${basename(tarball)}` },
        }),
      )
      // An SDK user needs none of the daemon's native builds; the cache first, the registry for what it lacks.
      await npm(
        ['install', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--no-package-lock'],
        project,
      )
      copyFileSync(join(repo, 'examples', 'swap.ts'), join(project, 'swap.ts'))
      writeFileSync(join(project, 'entries.ts'), entries)
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            outDir: 'out',
            // Node's types from this repository: the project under test is parx, not @types/node.
            typeRoots: [join(repo, 'node_modules', '@types')],
            types: ['node'],
          },
          files: ['swap.ts', 'entries.ts'],
        }),
      )
    })(),
  ])
  d = daemon
}, 600_000)
afterAll(async () => {
  await d?.close()
  // On disk (no tmpfs) and busy, removing the node_modules has taken minutes.
  if (project) await rm(project, { recursive: true, force: true })
}, 300_000)

describe('the SDK as an installed package (npm pack, installed in a project of its own)', () => {
  it('ships no sources: dist/ holds what exports names', () => {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'parx', 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; default: string } | string>
    }
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue
      for (const file of [target.types, target.default])
        expect(() => readFileSync(join(project, 'node_modules', 'parx', file)), `${entry}: ${file}`).not.toThrow()
    }
    expect(() => readFileSync(join(project, 'node_modules', 'parx', 'src', 'sdk', 'swap', 'index.ts'))).toThrow()
  })

  it('type-checks the example and every entry with tsc against the package', async () => {
    const checked = await run(process.execPath, [tsc, '-p', project]).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    )
    expect(checked).toBe('')
  })

  it('loads every entry in plain Node', async () => {
    const { stdout } = await run(process.execPath, [join(project, 'out', 'entries.js')], {
      cwd: project,
      env: { ...process.env, PARX_URL: d.urls.platform },
    })
    expect(stdout.trim().split('\n')).toEqual([
      'function function function function function function',
      'UNAUTHORIZED UNAUTHORIZED',
    ])
  })

  it('runs examples/swap.ts, compiled, against a daemon on 127.0.0.1: buys, swaps par, redeems', async () => {
    const apiKey = await d.partnerKey()
    const { stdout } = await run(process.execPath, [join(project, 'out', 'swap.js')], {
      cwd: project,
      env: { ...process.env, PARX_API_URL: d.urls.api, PARX_API_KEY: apiKey },
    })
    const [minOutBase, outputAmount] = stdout.trim().split(' ')
    expect(minOutBase).toMatch(/^\d+$/)
    expect(BigInt(outputAmount!)).toBeGreaterThanOrEqual(BigInt(minOutBase!))
    expect(BigInt(outputAmount!)).toBeGreaterThan(0n)
  })
})
