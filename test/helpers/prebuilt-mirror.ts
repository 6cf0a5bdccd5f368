import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { create } from 'tar'

const run = promisify(execFile)
const sqlite = fileURLToPath(new URL('../../node_modules/better-sqlite3', import.meta.url))
const binary = 'build/Release/better_sqlite3.node'

export type PrebuiltMirror = {
  /**
   * For the installing npm's environment: better-sqlite3's install script reads the host from there. It
   * also names npm's cache (the one npm uses anyway), where prebuild-install keeps its downloads.
   */
  env: Record<string, string>
  /** Stops the server and removes the downloads prebuild-install cached from it in npm's cache. */
  close(): Promise<void>
}

/**
 * A mirror on 127.0.0.1 of better-sqlite3's prebuilt binaries, for the tests that install the packed
 * package with its install scripts running (test/cli-install.test.ts). better-sqlite3's script is
 * `prebuild-install || node-gyp rebuild --release`: prebuild-install downloads the binary for this Node
 * from GitHub, which the test machines cannot reach, so every install compiled SQLite from source
 * (146 s of a 240 s `npm install -g` with other work on the machine; the whole install took 78 s
 * with the mirror). prebuild-install's documented setting for end users,
 * `npm_config_<package>_binary_host`, points the download here, and the mirror serves the binary the
 * repository's own install built, packed as prebuild-install's tarball
 * (`/v{version}/{name}-v{version}-{runtime}-v{abi}-{platform}{libc}-{arch}.tar.gz` holding
 * `build/Release/better_sqlite3.node`). The script still runs as shipped: it downloads, caches,
 * unpacks and loads the binary. Any other version or Node ABI gets a 404, and the script builds
 * from source as it does without the mirror.
 */
export async function startPrebuiltMirror(options: { npmCache?: string } = {}): Promise<PrebuiltMirror> {
  const npmCache =
    options.npmCache ??
    (
      await run('npm', ['config', 'get', 'cache'], { env: { ...process.env, npm_config_update_notifier: 'false' } })
    ).stdout.trim()
  const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8')) as { version: string }
  const chunks: Buffer[] = []
  for await (const chunk of create({ gzip: true, portable: true, cwd: sqlite }, [binary])) chunks.push(chunk as Buffer)
  const tarball = Buffer.concat(chunks)
  const quoted = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  // `{libc}` is empty on glibc and e.g. `musl` elsewhere: either way the binary was built on this machine.
  const served = new RegExp(
    `^/v${quoted(version)}/better-sqlite3-v${quoted(version)}-node-v${process.versions.modules}` +
      `-${process.platform}[a-z]*-${process.arch}\\.tar\\.gz$`,
  )
  const urls: string[] = []
  let host = ''
  let requests = 0
  const server = createServer((req, res) => {
    requests++
    if (req.method === 'GET' && served.test(req.url ?? '')) {
      urls.push(`${host}${req.url}`)
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': tarball.length }).end(tarball)
      return
    }
    console.warn(`prebuilt mirror: no ${req.url} here (it holds v${version}); better-sqlite3 builds from source`)
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    env: { npm_config_better_sqlite3_binary_host: host, npm_config_cache: npmCache },
    async close() {
      await new Promise((resolve) => server.close(resolve))
      // Not a failure (the script builds from source then), but the install took minutes longer.
      if (requests === 0) console.warn("prebuilt mirror: never asked; did npm run better-sqlite3's install script?")
      // prebuild-install keeps each download in `<npm cache>/_prebuilds`, named by its URL; the port
      // is new every run, so each run would leave a megabyte there.
      for (const url of urls) {
        const digest = createHash('sha512').update(url).digest('hex').slice(0, 6)
        const name = `${digest}-${basename(url).replace(/[^a-zA-Z0-9.]+/g, '-')}`
        rmSync(join(npmCache, '_prebuilds', name), { force: true })
      }
    },
  }
}
