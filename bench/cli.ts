import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createInterface } from 'node:readline'
import { report, summary } from './lib.js'

// PARX_BENCH_BIN=<other>/bin/parx.js measures another checkout (e.g. the tsx-era bin) the same way.
const parxBin = process.env.PARX_BENCH_BIN ? resolve(process.env.PARX_BENCH_BIN) : fileURLToPath(new URL('../bin/parx.js', import.meta.url))
const RUNS = Number(process.env.PARX_BENCH_RUNS ?? 15)

/** Wall time of a process from spawn to exit, p50 over RUNS (after one warm-up run for the page cache). */
function startTime(args: string[], env: NodeJS.ProcessEnv): number {
  const once = () => {
    const t = performance.now()
    const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
    return performance.now() - t
  }
  once()
  return summary(Array.from({ length: RUNS }, once)).p50
}

/** `parx serve --output json` until its ready line, then SIGTERM. */
async function serveReady(args: string[], env: NodeJS.ProcessEnv): Promise<{ wallMs: number; api: string; stop(): Promise<void> }> {
  const t0 = performance.now()
  const child = spawn(process.execPath, [parxBin, '--output', 'json', 'serve', '--port', '0', '--log-level', 'warn', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  const ready = await new Promise<{ urls: { api: string } }>((res, rej) => {
    createInterface({ input: child.stdout! }).once('line', (l) => res(JSON.parse(l)))
    child.once('exit', (code) => rej(new Error(`parx serve exited with ${code}`)))
  })
  const wallMs = performance.now() - t0
  const stop = () => new Promise<void>((res) => (child.exitCode !== null ? res() : (child.once('exit', () => res()), child.kill('SIGTERM'))))
  return { wallMs, api: ready.urls.api, stop }
}

/** CLI start-up beside a bare node start, as ratios; and the daemon's warm time to ready. */
export async function benchCli(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'parx-bench-cli-'))
  const env = { ...process.env, PARX_RUNTIME_DIR: join(tmp, 'run'), PARX_CONFIG_DIR: join(tmp, 'config'), NO_COLOR: '1' }
  try {
    const bare = startTime(['-e', '0'], env)
    report('cli.node_bare_p50', bare, 'ms', { runs: RUNS })
    const help = startTime([parxBin, '--help'], env)
    report('cli.help_p50', help, 'ms', { ratio_to_node: Math.round((help / bare) * 100) / 100, target: '< 3x node' })

    const cold = await serveReady(['--data-dir', join(tmp, 'data')], env)
    await cold.stop()
    const warm = await serveReady(['--data-dir', join(tmp, 'data')], env)
    report('cli.serve_warm_ready_ms', warm.wallMs, 'ms', { target: '< 1500' })
    try {
      const status = startTime([parxBin, '--api-url', warm.api, 'status', '--output', 'json'], env)
      report('cli.status_json_p50', status, 'ms', { ratio_to_node: Math.round((status / bare) * 100) / 100 })
    } finally {
      await warm.stop()
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}
