import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))

/** The npm package of an import path or of a bundled input (node_modules/<pkg>/...). */
const pkg = (p: string) => {
  const path = /(?:^|\/)node_modules\/(.*)$/.exec(p)?.[1] ?? p
  return path.startsWith('@') ? path.split('/').slice(0, 2).join('/') : path.split('/')[0]!
}
/** Packages a closure loads: kept external, or bundled into one of its chunks. */
const packagesOf = (c: { externals: string[]; inputs: string[] }) => [
  ...new Set(
    [...c.externals.filter((p) => !p.startsWith('node:')), ...c.inputs.filter((i) => i.includes('node_modules/'))].map(
      pkg,
    ),
  ),
]

type Meta = {
  outputs: Record<
    string,
    { imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown> }
  >
}

/** Everything dist/parx.js loads before running a command: its static imports, transitively. */
function staticClosure(meta: Meta, entry = 'dist/parx.js') {
  const seen = new Set<string>()
  const externals = new Set<string>()
  const inputs = new Set<string>()
  const visit = (out: string) => {
    if (seen.has(out)) return
    seen.add(out)
    for (const i of Object.keys(meta.outputs[out]!.inputs)) inputs.add(i)
    for (const imp of meta.outputs[out]!.imports) {
      if (imp.kind !== 'import-statement') continue
      if (imp.external) externals.add(imp.path)
      else visit(imp.path)
    }
  }
  visit(entry)
  return { externals: [...externals], inputs: [...inputs] }
}

describe('the compiled parx', () => {
  const meta = JSON.parse(readFileSync(new URL('../dist/meta.json', import.meta.url), 'utf8')) as Meta

  it('loads no chain library, HTTP client, config store or daemon code before a command runs (--help)', () => {
    const closure = staticClosure(meta)
    const heavy = [
      'viem',
      '@solana/web3.js',
      '@solana/spl-token',
      'undici',
      'conf',
      'zod',
      'better-sqlite3',
      'hono',
      'pino',
      'ora',
      'chalk',
      'litesvm',
      '@inquirer/prompts',
    ]
    expect(packagesOf(closure).filter((p) => heavy.includes(p))).toEqual([])
    expect(packagesOf(closure).sort()).toEqual(['commander'])
    expect(closure.inputs.filter((i) => i.startsWith('daemon/'))).toEqual([])
  })

  it('whoami, balance and the other platform commands load no chain library, undici or zod: their client is node:http', () => {
    const owner = (input: string) =>
      Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes(input))![0]
    // What a platform command loads once it runs: the credentials (conf) and the client, statically.
    const loaded = [owner('src/cli/platform-client.ts'), owner('src/cli/credentials.ts')].map((o) =>
      staticClosure(meta, o),
    )
    const packages = loaded.flatMap(packagesOf)
    for (const heavy of ['viem', 'undici', 'zod', '@solana/web3.js', 'hono', 'better-sqlite3'])
      expect(packages).not.toContain(heavy)
    expect(loaded.flatMap((l) => l.inputs).filter((i) => i.startsWith('daemon/') || i === 'src/sdk/http.ts')).toEqual(
      [],
    )
  })

  it("bundles the daemon's pure-ESM packages instead of loading their files one by one (serve's start-up)", () => {
    const daemon = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes('daemon/main.ts'))![0]
    const closure = staticClosure(meta, daemon)
    for (const bundled of ['viem', 'kysely', 'hono', 'zod']) {
      expect(closure.inputs.some((i) => i.includes(`node_modules/${bundled}/`))).toBe(true)
      expect(closure.externals.map(pkg)).not.toContain(bundled)
    }
  })

  it("loads each surface's heavy packages when first used, not before the daemon is ready (issue 26)", () => {
    const daemon = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes('daemon/main.ts'))![0]
    const atStart = packagesOf(staticClosure(meta, daemon))
    // MPP (a paid endpoint, pay), the ERC-4337 stack (first send or the prestart after ready), the
    // dashboard's sign-in, backups (tar), PostgreSQL, the OpenAPI document, the whole of undici (the
    // egress guard's fetch, the SDK's calls; the chain clients take its Pool alone, lean-transport.ts).
    const lazy = ['mppx', 'permissionless', 'siwe', 'tar', 'pg', '@asteasolutions/zod-to-openapi', 'undici']
    expect(atStart.filter((p) => lazy.includes(p))).toEqual([])
    // Still in the build, in chunks of their own (or external), loaded by a dynamic import.
    const everywhere = new Set(
      Object.values(meta.outputs)
        .flatMap((o) => [...Object.keys(o.inputs), ...o.imports.filter((i) => i.external).map((i) => i.path)])
        .map(pkg),
    )
    for (const p of lazy) expect(everywhere).toContain(p)
    // bip39's wordlists (243 KB), re-exported by viem/accounts, are left out (scripts/build.js).
    expect(staticClosure(meta, daemon).inputs.filter((i) => i.includes('@scure/bip39/esm/wordlists/'))).toEqual([])
  })

  it("serve's entry loads no package: the data dir is locked and the chains spawned while the composition root still loads", () => {
    const entry = Object.entries(meta.outputs).find(([, o]) => Object.keys(o.inputs).includes('daemon/entry.ts'))![0]
    const closure = staticClosure(meta, entry)
    expect(packagesOf(closure)).toEqual([])
    expect(closure.inputs).toContain('daemon/startup/early-start.ts')
    expect(closure.inputs).not.toContain('daemon/main.ts')
    // The other commands that reach the daemon go through the same entry.
    for (const command of ['serve', 'chains', 'deploy', 'attestor']) {
      expect(readFileSync(join(root, 'src', 'cli', 'commands', `${command}.ts`), 'utf8')).toContain(
        "import('../../../daemon/entry.js')",
      )
    }
  })

  it("derives an account's public key natively in the build, the same as viem's (scripts/build.js)", async () => {
    const chunk = Object.entries(meta.outputs).find(([, o]) =>
      Object.keys(o.inputs).some((i) => i.endsWith('viem/_esm/accounts/privateKeyToAccount.js')),
    )![0]
    expect(readFileSync(join(root, chunk), 'utf8')).toContain("__parxEcdh('secp256k1')".replaceAll("'", '"'))
    const built = (await import(join(root, chunk))) as typeof import('viem/accounts')
    const viem = await import('viem/accounts')
    for (let i = 0; i < 20; i++) {
      const key = viem.generatePrivateKey()
      const [a, b] = [built.privateKeyToAccount(key), viem.privateKeyToAccount(key)]
      expect(a.publicKey).toBe(b.publicKey)
      expect(a.address).toBe(b.address)
      expect(await a.signMessage({ message: 'parx' })).toBe(await b.signMessage({ message: 'parx' }))
    }
    // Not 32 bytes of hex: noble's own refusal, as before.
    expect(() => built.privateKeyToAccount('0x1234')).toThrow()
  })

  it('keeps the daemon in its own chunk, with the Solana programs it loads beside it', () => {
    const daemonChunks = Object.entries(meta.outputs).filter(([, o]) =>
      Object.keys(o.inputs).includes('daemon/main.ts'),
    )
    expect(daemonChunks).toHaveLength(1)
    // contracts/solana/programs.ts reads build/<program>.so beside itself, wherever its code lands.
    const programs = Object.entries(meta.outputs).find(([, o]) =>
      Object.keys(o.inputs).includes('contracts/solana/programs.ts'),
    )
    expect(programs?.[0]).toMatch(/^dist\/[^/]+\.js$/)
    for (const name of ['origin_settler', 'dest_settler']) {
      expect(readFileSync(join(root, 'dist', 'build', `${name}.so`))).toEqual(
        readFileSync(join(root, 'contracts', 'solana', 'build', `${name}.so`)),
      )
    }
  })

  it('answers --help, --version and -V -o json without TypeScript at run time', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' })
    expect(help.status).toBe(0)
    expect(help.stdout).toMatch(/Usage: parx/)
    const version = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim()).toBe(version)
    expect(JSON.parse(execFileSync(process.execPath, [bin, '-V', '-o', 'json'], { encoding: 'utf8' }))).toEqual({
      version,
    })
    // tsx is never loaded: no loader hooks in the process that ran --help.
    expect(readFileSync(bin, 'utf8')).not.toMatch(/tsx/)
  })

  it('a missing command is a usage error; help asked for is not', () => {
    expect(spawnSync(process.execPath, [bin], { encoding: 'utf8' }).status).toBe(2)
    const json = spawnSync(process.execPath, [bin, '-o', 'json', 'keys'], { encoding: 'utf8' })
    expect(json.status).toBe(2)
    expect(JSON.parse(json.stdout)).toEqual({ error: expect.stringMatching(/a command is needed/), code: 'USAGE' })
    expect(spawnSync(process.execPath, [bin, 'keys', '--help'], { encoding: 'utf8' }).status).toBe(0)
    expect(spawnSync(process.execPath, [bin, 'help', 'keys'], { encoding: 'utf8' }).status).toBe(0)
  })

  it('runs as `npx parx` from the clone', () => {
    const r = spawnSync('npx', ['--no-install', 'parx', '--version'], { cwd: root, encoding: 'utf8' })
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
  })
})
