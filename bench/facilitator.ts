import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { type Address, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { SupportedResponse } from '../src/sdk/x402/types.js'
import { paymentIdLatency, pendingToCompleted, quietChain } from './facilitator-extras.js'
import { report, spawnServe, summary } from './lib.js'
import { payer, type Request, type UsdcKind } from './x402-payer.js'

const PAYERS = 20
/**
 * Timed sequential settles per facilitator: p99 is then about the 5th-slowest sample, not the
 * 2nd as with 150, which moved both sides' p99 (and their ratio) by up to 2x between runs.
 */
const SEQUENTIAL_SETTLES = 500
/** Settles with no /verify before them, timed on their own. */
const DIRECT_SETTLES = 50
/**
 * The two facilitators' sequential settles alternate in rounds of this many (direct ones in rounds of
 * DIRECT_ROUND), the first of each round taking turns, so both meet the same chain. anvil 1.7.1
 * rebuilds its whole state trie for every block, and every settle adds a storage slot to USDC
 * (measured on a bare anvil: ~2 ms more per transaction for every 500 new slots). Timed one after
 * the other, the second facilitator settled on a chain 1,560 slots bigger: the reference's p50 went
 * from 19-20 ms to 28 ms and its p99 from 41-64 ms to 109-123 ms when it went second, parx's p50 from
 * 7.3-8.1 ms to 5.9-6.3 ms when it went first.
 */
const ROUND = 10
const DIRECT_ROUND = 5
/** Settles each concurrent payer makes in the loaded stage (20 x 50 = 1,000 per facilitator), in two halves. */
const LOADED_SETTLES_EACH = 50
const PRICE = 10_000n // 0.01 USDC
const runTs = fileURLToPath(new URL('../bin/run-ts.js', import.meta.url))
const referenceScript = fileURLToPath(new URL('./reference-facilitator.ts', import.meta.url))

type Target = { name: 'parx' | 'reference'; pool: Pool; base: string }

/** parx's receipt wait in this run: short, so the delayed-receipt stage answers pending quickly (automine never waits). */
const RECEIPT_TIMEOUT_MS = 500

/**
 * parx's facilitator against the reference one (@x402/core + @x402/evm) on the same anvil, both
 * over HTTP in their own processes, with the same eip3009 USDC payments: verify p50/p99 and
 * throughput, settle p50/p99, and settles/s with 20 concurrent payers; ratios are parx/reference.
 * Then verify and settle with a payment-identifier in the payload (both; parx also answers the
 * same payment again from its ledger), and, parx only, the time from a delayed receipt (mining
 * paused) to `completed` on GET /facilitator/status/:paymentId.
 */
export async function benchFacilitator(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parx-bench-x402-'))
  const ours = await spawnServe(['--data-dir', dataDir, '--fresh', '--log-level', 'warn'], {
    PARX_FACILITATOR_RECEIPT_TIMEOUT_MS: String(RECEIPT_TIMEOUT_MS),
  })
  let stopReference = async () => {}
  try {
    const urls = ours.ready.urls as { api: string; facilitator: string; rpc: Record<string, string> }
    const supported = (await (await fetch(`${urls.facilitator}/supported`)).json()) as SupportedResponse
    const kind = supported.kinds.find(
      (k) => k.x402Version === 2 && k.network.startsWith('eip155:') && k.extra?.symbol === 'USDC',
    )!
    const usdc: UsdcKind = {
      network: kind.network,
      asset: kind.extra!.asset as Address,
      name: String(kind.extra!.name),
      version: String(kind.extra!.version),
      chainId: Number(kind.network.split(':')[1]),
    }
    const rpc = Object.entries(urls.rpc).find(([k]) => k.endsWith('base'))![1]
    const rpcOf = (method: string, params: unknown[] = []) => rpcCall(rpc, method, params)

    const refKey = generatePrivateKey()
    await rpcOf('anvil_setBalance', [privateKeyToAccount(refKey).address, `0x${parseEther('1000').toString(16)}`])
    const ref = await spawnReference(rpc, usdc.chainId, refKey)
    stopReference = ref.stop

    const seller = privateKeyToAccount(generatePrivateKey()).address
    const payers = Array.from({ length: PAYERS }, () => payer(usdc, seller, PRICE))
    for (const p of payers)
      await postJson(`${urls.api}/api/local/faucet`, { to: p.address, token: 'USDC', amount: '100000' })

    const targets: Target[] = [
      { name: 'reference', pool: new Pool(ref.url, { connections: PAYERS }), base: '' },
      {
        name: 'parx',
        pool: new Pool(new URL(urls.facilitator).origin, { connections: PAYERS }),
        base: new URL(urls.facilitator).pathname,
      },
    ]
    const results: Record<string, Record<string, number>> = { parx: {}, reference: {} }

    for (const t of targets) {
      const valid = await payers[0]!.sign()
      for (let i = 0; i < 50; i++) await call(t, 'verify', valid) // warm-up: connections, JIT, executor setup
      const lat: number[] = []
      for (let i = 0; i < 300; i++) lat.push((await call(t, 'verify', valid)).ms)
      const conc = combined([await concurrently(PAYERS, 100, () => call(t, 'verify', valid))])
      Object.assign(results[t.name]!, {
        verify_p50: summary(lat).p50,
        verify_p99: summary(lat).p99,
        verify_per_s: conc.perSecond,
      })
    }
    // Settle is timed as sellers call it: right after /verify of the same payment (only /settle is timed).
    const verifyThenSettle = async (t: Target, r: Request) => {
      await call(t, 'verify', r)
      return call(t, 'settle', r)
    }
    const sign = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => payers[i % PAYERS]!.sign()))
    const tally = () => ({ seq: [] as number[], failed: 0, direct: [] as number[], directFailed: 0 })
    const timed = { parx: tally(), reference: tally() }
    await quietChain(rpcOf)
    for (const t of targets) for (const r of await sign(10)) await verifyThenSettle(t, r) // warm-up
    await alternately(targets, SEQUENTIAL_SETTLES / ROUND, async (t) => {
      for (const r of await sign(ROUND)) {
        const out = await verifyThenSettle(t, r)
        timed[t.name].seq.push(out.ms)
        if (!out.ok) timed[t.name].failed++
      }
    })
    // Settle with no /verify before it (the verified cache cannot help): counted only when it succeeds,
    // so a refusal (an expired or spent payment answers fast) never passes for a fast settle.
    await alternately(targets, DIRECT_SETTLES / DIRECT_ROUND, async (t) => {
      for (const r of await sign(DIRECT_ROUND)) {
        const out = await call(t, 'settle', r)
        if (out.ok) timed[t.name].direct.push(out.ms)
        else timed[t.name].directFailed++
      }
    })
    // The loaded stage in two halves, ordered reference, parx, parx, reference, each on a quiet
    // chain (no backlog left by the half before): both meet the same chain on average.
    const loaded = { parx: [] as Concurrent[], reference: [] as Concurrent[] }
    for (const t of [...targets, ...[...targets].reverse()]) {
      await quietChain(rpcOf)
      const signed = await Promise.all(
        payers.map((p) => Promise.all(Array.from({ length: LOADED_SETTLES_EACH / 2 }, () => p.sign()))),
      )
      loaded[t.name].push(
        await concurrently(PAYERS, LOADED_SETTLES_EACH / 2, (worker, i) => verifyThenSettle(t, signed[worker]![i]!)),
      )
    }
    for (const t of targets) {
      const { seq, failed, direct, directFailed } = timed[t.name]
      const conc = combined(loaded[t.name])
      Object.assign(results[t.name]!, {
        settle_p50: summary(seq).p50,
        settle_p99: summary(seq).p99,
        settle_failed: failed,
        settle_direct_p50: summary(direct).p50,
        settle_direct_p99: summary(direct).p99,
        settle_direct_failed: directFailed,
        settle_per_s: conc.perSecond,
        settle_loaded_p50: conc.p50,
        settle_loaded_p99: conc.p99,
        settle_loaded_failed: conc.failed,
      })
    }

    for (const t of targets) {
      // After the loaded stage the chain may still be mining its backlog: start each on a quiet chain.
      await quietChain(rpcOf)
      Object.assign(
        results[t.name]!,
        await paymentIdLatency(
          (op, body) => call(t, op, body),
          () => payers[0]!.sign(),
          100,
          t.name,
        ),
      )
    }
    // Last: it pauses the anvil both facilitators share.
    const delayed = await pendingToCompleted({
      facilitator: urls.facilitator,
      rpc: rpcOf,
      sign: () => payers[1]!.sign(),
      rounds: 10,
    })
    Object.assign(results.parx!, delayed)

    for (const [impl, r] of Object.entries(results)) {
      for (const [name, value] of Object.entries(r))
        report(`facilitator.${name}`, value, unit(name), { impl, payers: PAYERS, method: 'eip3009', asset: 'USDC' })
    }
    const p = results.parx!,
      q = results.reference!
    const ratio = (name: string, target: string, a: number, b: number) =>
      report(`facilitator.ratio.${name}`, a / b, 'x', { parx: round(a), reference: round(b), target })
    ratio('verify_p50', '<= 0.5', p.verify_p50!, q.verify_p50!)
    ratio('verify_p99', '<= 0.5', p.verify_p99!, q.verify_p99!)
    ratio('verify_per_s', '>= 1', p.verify_per_s!, q.verify_per_s!)
    ratio('settle_p50', '<= 0.5', p.settle_p50!, q.settle_p50!)
    ratio('settle_p99', '<= 0.5', p.settle_p99!, q.settle_p99!)
    ratio('settle_per_s', '>= 20', p.settle_per_s!, q.settle_per_s!)
    ratio('verify_pid_p50', '<= 0.5', p.verify_pid_p50!, q.verify_pid_p50!)
    ratio('settle_pid_p50', '<= 0.5', p.settle_pid_p50!, q.settle_pid_p50!)
    for (const t of targets) await t.pool.close()
  } finally {
    await stopReference()
    await ours.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const unit = (name: string) =>
  name.endsWith('_per_s') ? 'per s' : /(failed|_n|not_pending)$/.test(name) ? 'count' : 'ms'
const round = (n: number) => Math.round(n * 100) / 100

async function call(t: Target, op: 'verify' | 'settle', body: Request): Promise<{ ms: number; ok: boolean }> {
  const t0 = performance.now()
  const res = await t.pool.request({
    path: `${t.base}/${op}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const out = (await res.body.json()) as { isValid?: boolean; success?: boolean }
  return { ms: performance.now() - t0, ok: op === 'verify' ? out.isValid === true : out.success === true }
}

/** `rounds` rounds in which each target runs `fn` once; the one to go first alternates. */
async function alternately(targets: Target[], rounds: number, fn: (t: Target) => Promise<void>): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) await fn(t)
  }
}

type Concurrent = { lat: number[]; failed: number; seconds: number }

/** `workers` loops, each doing `each` calls one after another; per-call latency and the wall-clock time. */
async function concurrently(
  workers: number,
  each: number,
  fn: (worker: number, i: number) => Promise<{ ms: number; ok: boolean }>,
): Promise<Concurrent> {
  const lat: number[] = []
  let failed = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; i < each; i++) {
        const out = await fn(w, i)
        lat.push(out.ms)
        if (!out.ok) failed++
      }
    }),
  )
  return { lat, failed, seconds: (performance.now() - t0) / 1000 }
}

/** Rate (successful calls over the parts' summed wall-clock time) and latency of one or more concurrent runs. */
function combined(parts: Concurrent[]) {
  const lat = parts.flatMap((p) => p.lat)
  const failed = parts.reduce((n, p) => n + p.failed, 0)
  const s = summary(lat)
  return { perSecond: (lat.length - failed) / parts.reduce((n, p) => n + p.seconds, 0), p50: s.p50, p99: s.p99, failed }
}

async function spawnReference(
  rpc: string,
  chainId: number,
  key: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [runTs, referenceScript, rpc, String(chainId), key], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`the reference facilitator exited with ${code}`)))
  })
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  return { url: (JSON.parse(line) as { url: string }).url, stop }
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

async function rpcCall(url: string, method: string, params: unknown[]): Promise<unknown> {
  return postJson(url, { jsonrpc: '2.0', id: 1, method, params })
}
