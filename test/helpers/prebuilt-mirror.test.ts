import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { type PrebuiltMirror, startPrebuiltMirror } from './prebuilt-mirror.js'

const run = promisify(execFile)
const modules = fileURLToPath(new URL('../../node_modules', import.meta.url))
const tmp = mkdtempSync(join(tmpdir(), 'parx-prebuilt-mirror-'))
let mirror: PrebuiltMirror | undefined
afterAll(async () => {
  await mirror?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** better-sqlite3's install script's first half, in a package directory holding only its package.json. */
async function prebuildInstall(version: string, env: Record<string, string>) {
  const pkg = JSON.parse(readFileSync(join(modules, 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }
  const dir = join(tmp, version)
  mkdirSync(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...pkg, version }))
  const script = join(modules, 'prebuild-install', 'bin.js')
  const exit = await run(process.execPath, [script], { cwd: dir, env: { ...process.env, ...env } }).then(
    () => 0,
    (e: { code: number }) => e.code,
  )
  return { exit, dir }
}

describe("the mirror of better-sqlite3's prebuilt binary", () => {
  it("serves prebuild-install the repository's binary, and nothing for another version", async () => {
    // A cache of this test's own: what prebuild-install keeps there is this run's alone.
    const cache = join(tmp, 'cache')
    const cached = () => (existsSync(join(cache, '_prebuilds')) ? readdirSync(join(cache, '_prebuilds')) : [])
    mirror = await startPrebuiltMirror({ npmCache: cache })
    const env = mirror.env
    const { version } = JSON.parse(readFileSync(join(modules, 'better-sqlite3', 'package.json'), 'utf8'))
    const held = await prebuildInstall(version, env)
    expect(held.exit).toBe(0)
    // Unpacked where better-sqlite3 loads it from, byte for byte the repository's (prebuild-install also loaded it).
    const binary = join('build', 'Release', 'better_sqlite3.node')
    expect(readFileSync(join(held.dir, binary)).equals(readFileSync(join(modules, 'better-sqlite3', binary)))).toBe(
      true,
    )
    expect(cached()).toHaveLength(1)
    const other = await prebuildInstall('0.0.1', env)
    expect(other.exit).not.toBe(0)
    expect(existsSync(join(other.dir, binary))).toBe(false)
    await mirror.close()
    expect(cached()).toEqual([])
  })
})
