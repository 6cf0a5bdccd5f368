import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { cpuMs, daemonSettled, report, rssMiB, spawnServe, summary } from './lib.js'

/** Foundation figures: cold and warm time to ready, RSS after boot, /api/base/info latency at 50 clients. */
export async function benchServe(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-'))
  try {
    const cold = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
    // From spawn to the ready line (what a user waits); the daemon's own figure starts after its modules
    // load. cpu_ms (the process's CPU time until ready) still compares runs on a busy machine.
    report('serve.cold_ready_ms', cold.wallMs, 'ms', {
      daemon_reported_ms: cold.ready.readyMs,
      cpu_ms: cpuMs(cold.child.pid!),
      target: '<= 2000',
    })
    await cold.stop()

    const warm = await spawnServe(['--data-dir', dataDir, '--log-level', 'warn'])
    report('serve.warm_ready_ms', warm.wallMs, 'ms', {
      daemon_reported_ms: warm.ready.readyMs,
      cpu_ms: cpuMs(warm.child.pid!),
      target: '<= 1000',
    })
    const rss = rssMiB(warm.child.pid!)
    report('serve.rss_after_boot', rss.self, 'MiB', { with_anvil_children_MiB: Math.round(rss.withChildren) })

    // The API's steady state: timed once the daemon's background start-up after ready is over.
    const settledAfterMs = await daemonSettled(warm.child.pid!)
    const api = warm.ready.urls.api
    const pool = new Pool(api, { connections: 50, pipelining: 1 })
    const get = async () => {
      const t = performance.now()
      const res = await pool.request({ path: '/api/base/info', method: 'GET' })
      await res.body.text()
      if (res.statusCode !== 200) throw new Error(`/api/base/info answered ${res.statusCode}`)
      return performance.now() - t
    }
    for (let i = 0; i < 200; i++) await get() // warm-up
    const samples: number[] = []
    const total = 10_000
    let next = 0
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next++ < total) samples.push(await get())
      }),
    )
    const elapsed = (performance.now() - t0) / 1000
    const s = summary(samples)
    report('api.base_info.p50', s.p50, 'ms', {
      clients: 50,
      requests: s.n,
      target: '< 5',
      daemonSettledAfterMs: settledAfterMs,
    })
    report('api.base_info.p99', s.p99, 'ms', { clients: 50, requests: s.n })
    report('api.base_info.throughput', s.n / elapsed, 'req/s', { clients: 50 })
    await pool.close()
    await warm.stop()
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
