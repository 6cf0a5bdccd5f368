import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { healthProbe } from '../test/helpers/health-probe.js'
import { report, spawnServe, summary } from './lib.js'

const HOSTILE_SECONDS = 15

/**
 * Issue 14 item 2: `/api/health` latency while a hostile client sends the requests that froze the
 * daemon: getBalance of a 60,000-character "pubkey", /facilitator/verify on Solana with a
 * 63,000-character signature, and a JSON-RPC batch of 5,000 requestAirdrop calls, each in a loop.
 * The health probe runs in a worker thread so it measures the daemon, not this client.
 */
export async function benchHostile(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-hostile-'))
  const serve = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'])
  try {
    const ready = serve.ready as unknown as { urls: { api: string; rpc: Record<string, string> } }
    const api = ready.urls.api
    const rpc = ready.urls.rpc['local-solana']!
    const health = `${api}/api/health`

    const idle = healthProbe(health)
    await sleep(3_000)
    const idleSamples = (await idle.stop()).filter((x) => x >= 0)
    report('hostile.health_idle_p99', summary(idleSamples).p99, 'ms', {
      p50: round(summary(idleSamples).p50),
      n: idleSamples.length,
    })

    const supported = (await (await fetch(`${api}/facilitator/supported`)).json()) as {
      kinds: Array<{ x402Version: number; network: string; extra?: { assetTransferMethod?: string; asset?: string } }>
    }
    const solKind = supported.kinds.find((k) => k.network.startsWith('solana:') && k.x402Version === 2)
    const network = solKind?.network ?? 'solana:local'
    const info = (await (await fetch(`${api}/api/sol/info`)).json()) as {
      mints: Record<string, { mint: string }>
      solver: string
    }
    const asset = Object.values(info.mints)[0]?.mint ?? ''
    const requirements = {
      scheme: 'exact',
      network,
      asset,
      payTo: info.solver,
      amount: '1',
      maxAmountRequired: '1',
      maxTimeoutSeconds: 60,
      extra: { assetTransferMethod: 'delegated-spl' },
    }
    const verifyBody = JSON.stringify({
      x402Version: 2,
      paymentRequirements: requirements,
      paymentPayload: {
        x402Version: 2,
        accepted: requirements,
        payload: {
          signature: '2'.repeat(63_000),
          authorization: {
            from: info.solver,
            to: info.solver,
            value: '1',
            validAfter: '0',
            validBefore: '9999999999',
            nonce: 'n1',
          },
        },
      },
    })
    const balanceBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: ['1'.repeat(60_000)] })
    const airdropBody = JSON.stringify(
      Array.from({ length: 5_000 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'requestAirdrop',
        params: ['7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV', 1_000 + i],
      })),
    )
    const attacks: Record<string, () => Promise<Response>> = {
      rpc_getBalance_60k_pubkey: () =>
        fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: balanceBody }),
      facilitator_verify_63k_signature: () =>
        fetch(`${api}/facilitator/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: verifyBody,
        }),
      rpc_batch_5000_airdrops: () =>
        fetch(rpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: airdropBody }),
    }

    const probe = healthProbe(health)
    const until = performance.now() + HOSTILE_SECONDS * 1_000
    const results = await Promise.all(
      Object.entries(attacks).map(async ([name, send]) => {
        const times: number[] = []
        const statuses = new Set<number | string>()
        while (performance.now() < until) {
          const t = performance.now()
          try {
            const res = await send()
            await res.arrayBuffer()
            statuses.add(res.status)
          } catch (e) {
            statuses.add(String((e as Error).cause ?? e).slice(0, 40))
          }
          times.push(performance.now() - t)
        }
        return { name, times, statuses: [...statuses] }
      }),
    )
    const samples = await probe.stop()
    const ok = samples.filter((x) => x >= 0)
    const s = summary(ok)
    report('hostile.health_p99', s.p99, 'ms', {
      p50: round(s.p50),
      max: round(Math.max(...ok)),
      n: s.n,
      failed: samples.length - ok.length,
      seconds: HOSTILE_SECONDS,
      target: '< 50',
    })
    for (const r of results)
      report(`hostile.${r.name}`, summary(r.times).p50, 'ms', {
        sent: r.times.length,
        p99: round(summary(r.times).p99),
        statuses: r.statuses,
      })
  } finally {
    await serve.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const round = (x: number) => Math.round(x * 100) / 100
