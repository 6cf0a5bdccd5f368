import { execFile, spawnSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { packedParx } from './helpers/pack.js'
import { type PrebuiltMirror, startPrebuiltMirror } from './helpers/prebuilt-mirror.js'
import { scratchDir } from './helpers/scratch.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
// A whole installed dependency tree: in memory where the machine allows (test/helpers/scratch.ts says why).
const tmp = scratchDir('parx-install-')
let mirror: PrebuiltMirror | undefined
afterAll(async () => {
  await mirror?.close()
  // On disk (no tmpfs) and busy, the removal alone has taken over two minutes.
  rmSync(tmp, { recursive: true, force: true })
}, 600_000)

describe('npm pack + npm install -g', () => {
  // Slow on purpose (it installs every dependency into a fresh prefix): the one test of the package as shipped.
  it('installs a package that runs without the repository', { timeout: 600_000 }, async () => {
    // better-sqlite3's binary from a mirror on 127.0.0.1, its install script otherwise as shipped
    // (test/helpers/prebuilt-mirror.ts); npm runs asynchronously so that this process can serve it.
    const [{ tarball, files }, started] = await Promise.all([packedParx(), startPrebuiltMirror()])
    mirror = started
    const npm = (args: string[], cwd: string) =>
      run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, ...started.env } })
    expect(files).toContain('dist/parx.js')
    // No sources; the SDK's declarations (dist/types/, package.json's exports) are the only .ts.
    expect(
      files.filter(
        (f) =>
          /^(src|daemon|test)\//.test(f) ||
          (f.endsWith('.ts') && !(f.startsWith('dist/types/') && f.endsWith('.d.ts'))),
      ),
    ).toEqual([])
    expect(files).toContain('dist/types/src/sdk/swap/index.d.ts')

    const prefix = join(tmp, 'prefix')
    await npm(['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], tmp)
    // A machine without the repo: run from elsewhere, with a home of its own.
    const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, HOME: join(tmp, 'home') }
    const parx = (args: string[]) => spawnSync(join(prefix, 'bin', 'parx'), args, { cwd: tmp, env, encoding: 'utf8' })
    const help = parx(['--help'])
    expect(help.status, help.stderr).toBe(0)
    expect(help.stdout).toMatch(/Usage: parx/)
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version
    expect(parx(['--version']).stdout.trim()).toBe(version)
    // A client command runs its lazily loaded code from the installed package too.
    const status = parx(['-o', 'json', 'status', '--api-url', 'http://127.0.0.1:9'])
    expect(status.status).toBe(5)
    expect(JSON.parse(status.stdout).code).toBe('DAEMON_UNREACHABLE')
    // The agent skill ships, and `parx skill --path` finds it inside the installed package.
    expect(files).toContain('skills/parx/SKILL.md')
    const skill = parx(['skill', '--path'])
    expect(skill.status, skill.stderr).toBe(0)
    expect(skill.stdout.trim()).toBe(join(prefix, 'lib', 'node_modules', 'parx', 'skills', 'parx', 'SKILL.md'))
    expect(parx(['skill']).stdout).toMatch(/^---\nname: parx\n/)
  })
})
