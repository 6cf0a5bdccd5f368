import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { keyFilePath } from '../src/config/paths.js'
import type { BaseInfo, SwapRequestBody } from '../src/sdk/swap/index.js'
import type { SupportedResponse } from '../src/sdk/x402/types.js'
import { report, type ServeChild, spawnServe, summary } from './lib.js'
import { fundUsers, signChain } from './swap.js'
import { payer, type Request } from './x402-payer.js'

/**
 * What metrics cost on the two hot paths (docs/operations.md "Metrics"; issue 28: within 3%):
 * facilitator settle p50 (after a /verify, as sellers call it) and swap accepted p50, on two
 * `parx serve` started side by side, one with metrics off (PARX_METRICS_ENABLED=false) and one on,
 * each with its own embedded chains. The two are timed in alternating rounds, the first of each
 * round taking turns, so drift (the machine, the chains growing) falls on both; the "on" daemon is
 * scraped between rounds, as Prometheus would. Sizes: PARX_BENCH_METRICS_ROUNDS (default 20) and
 * PARX_BENCH_METRICS_EACH (settles and swaps per daemon per round, default 25); a quick check:
 * `PARX_BENCH_METRICS_ROUNDS=2 PARX_BENCH_METRICS_EACH=5 npm run bench -- metrics`.
 */
export async function benchMetrics(): Promise<void> {
  const rounds = Number(process.env.PARX_BENCH_METRICS_ROUNDS ?? 20)
  const each = Number(process.env.PARX_BENCH_METRICS_EACH ?? 25)
  const started = await Promise.allSettled([start('off'), start('on')])
  const targets = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []))
  const failure = started.find((s) => s.status === 'rejected')
  if (failure) {
    await Promise.all(targets.map((t) => t.stop()))
    throw failure.reason
  }
  try {
    // Warm-up on both: connections, JIT, the facilitator's executor setup.
    for (const t of targets) await t.warm()
    for (let round = 0; round < rounds; round++) {
      for (const t of round % 2 ? [...targets].reverse() : targets) await t.round(round, each)
      await targets[1]!.scrape()
    }
    const figures: Record<string, { settle: number; swap: number; settles: number; swaps: number; failed: number }> = {}
    for (const t of targets) {
      figures[t.mode] = {
        settle: summary(t.settles).p50,
        swap: summary(t.swaps).p50,
        settles: t.settles.length,
        swaps: t.swaps.length,
        failed: t.failed,
      }
      report('metrics.settle_p50', figures[t.mode]!.settle, 'ms', {
        metrics: t.mode,
        settles: t.settles.length,
        failed: t.failed,
      })
      report('metrics.swap_accepted_p50', figures[t.mode]!.swap, 'ms', { metrics: t.mode, swaps: t.swaps.length })
    }
    const off = figures.off!,
      on = figures.on!
    report('metrics.ratio.settle_p50', on.settle / off.settle, 'x', {
      on: round2(on.settle),
      off: round2(off.settle),
      target: '<= 1.03',
    })
    report('metrics.ratio.swap_accepted_p50', on.swap / off.swap, 'x', {
      on: round2(on.swap),
      off: round2(off.swap),
      target: '<= 1.03',
    })
  } finally {
    await Promise.all(targets.map((t) => t.stop()))
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100

async function start(mode: 'off' | 'on') {
  const dataDir = mkdtempSync(join(tmpdir(), `parx-bench-metrics-${mode}-`))
  let serve: ServeChild | undefined
  let pool: Pool | undefined
  const stop = async () => {
    await pool?.close()
    await serve?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    serve = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'], {
      PARX_METRICS_ENABLED: mode === 'on' ? 'true' : 'false',
    })
    const urls = serve.ready.urls as { api: string; facilitator: string }
    const p = (pool = new Pool(urls.api, { connections: 4, pipelining: 1 }))
    const call = async <T>(
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; body: T }> => {
      const res = await p.request({
        method,
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.body.text()
      return { status: res.statusCode, body: (text.startsWith('{') ? JSON.parse(text) : text) as T }
    }
    const { operatorToken } = JSON.parse(readFileSync(keyFilePath(dataDir), 'utf8')) as { operatorToken: string }
    const operator = { authorization: `Bearer ${operatorToken}` }
    const { body: created } = await call<{ key: string }>(
      'POST',
      '/api/operator/keys',
      { name: 'bench', owner: '0x00000000000000000000000000000000000000aa' },
      operator,
    )
    const auth = { 'x-api-key': created.key }

    const supported = (await call<SupportedResponse>('GET', '/facilitator/supported')).body
    const kind = supported.kinds.find(
      (k) => k.x402Version === 2 && k.network.startsWith('eip155:') && k.extra?.symbol === 'USDC',
    )!
    const usdc = {
      network: kind.network,
      asset: kind.extra!.asset as Address,
      name: String(kind.extra!.name),
      version: String(kind.extra!.version),
      chainId: Number(kind.network.split(':')[1]),
    }
    const payers = Array.from({ length: 4 }, () =>
      payer(usdc, privateKeyToAccount(generatePrivateKey()).address, 10_000n),
    )
    for (const x of payers) await call('POST', '/api/local/faucet', { to: x.address, token: 'USDC', amount: '10000' })
    let next = 0
    const sign = () => payers[next++ % payers.length]!.sign()

    const info = (await call<BaseInfo>('GET', '/api/base/info')).body
    const swapBodies = async (n: number): Promise<SwapRequestBody[]> => {
      // One fresh user per swap (its nonce 0): no swap waits for the one before it to be mined.
      const users = await fundUsers(call, n, 1_000_000n)
      return (await Promise.all(users.map((u) => signChain(u, info, 1)))).map((b) => b[0]!)
    }
    const timed = async (method: 'POST', path: string, body: unknown, headers: Record<string, string> = {}) => {
      const t0 = performance.now()
      const r = await call<{ success?: boolean; hash?: Hex; error?: string }>(method, path, body, headers)
      return { ms: performance.now() - t0, r }
    }
    const settles: number[] = []
    const swaps: number[] = []
    let failed = 0
    const settleOnce = async (r: Request) => {
      await call('POST', '/facilitator/verify', r)
      return timed('POST', '/facilitator/settle', r)
    }
    return {
      mode,
      settles,
      swaps,
      get failed() {
        return failed
      },
      stop,
      async warm() {
        for (let i = 0; i < 10; i++) await settleOnce(await sign())
        for (const b of await swapBodies(5)) await timed('POST', '/api/base/swap', b, auth)
      },
      async round(_round: number, n: number) {
        // Signed and funded before the clock starts: the figures are the daemon's.
        const requests = await Promise.all(Array.from({ length: n }, sign))
        const bodies = await swapBodies(n)
        for (const r of requests) {
          const out = await settleOnce(r)
          if (out.r.body.success) settles.push(out.ms)
          else failed++
        }
        for (const b of bodies) {
          const out = await timed('POST', '/api/base/swap', b, auth)
          if (out.r.status !== 200) throw new Error(`swap answered ${out.r.status}: ${out.r.body.error}`)
          swaps.push(out.ms)
        }
      },
      async scrape() {
        const r = await call<string>('GET', '/metrics', undefined, operator)
        if (r.status !== 200) throw new Error(`GET /metrics answered ${r.status}`)
      },
    }
  } catch (e) {
    await stop()
    throw e
  }
}
