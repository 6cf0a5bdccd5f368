import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'

/** One figure per JSON line, so runs can be compared by machines as well as people. */
export function report(name: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ bench: name, value: Math.round(value * 100) / 100, unit, ...extra }))
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b)
  return { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length }
}

const parxBin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))

export type ServeChild = {
  child: ChildProcess
  ready: { readyMs: number; urls: { api: string } }
  wallMs: number
  stop(): Promise<void>
}

/**
 * Starts `parx serve --output json` as a user would and waits for its ready line; `env` adds PARX_*
 * settings. PARX_BENCH_NODE_FLAGS passes node flags to the daemon under test, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where its time goes.
 */
export async function spawnServe(args: string[], env: Record<string, string> = {}): Promise<ServeChild> {
  const t0 = performance.now()
  const nodeFlags = process.env.PARX_BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? []
  const child = spawn(process.execPath, [...nodeFlags, parxBin, '--output', 'json', 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  })
  const lines = createInterface({ input: child.stdout! })
  const ready = await new Promise<ServeChild['ready']>((resolve, reject) => {
    // The first line is the ready line, or the error that stopped the start: a figure is never taken from an error.
    lines.once('line', (l) => {
      const r = JSON.parse(l)
      if (r.ready === true) resolve(r)
      else reject(new Error(`parx serve did not start: ${l}`))
    })
    child.once('exit', (code) => reject(new Error(`parx serve exited with ${code}`)))
  })
  const wallMs = performance.now() - t0
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  return { child, ready, wallMs, stop }
}

/** Resident memory of a process and of its children (the anvil processes), in MiB. */
export function rssMiB(pid: number): { self: number; withChildren: number } {
  const rss = (p: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {}
  const self = rss(pid)
  return { self, withChildren: self + children.reduce((a, c) => a + rss(c), 0) }
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc (Linux). Divided by the
 * operations done between two reads it gives the process's CPU cost per operation, a figure that
 * holds on a busy machine where latencies and rates do not.
 */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ')
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
}

/** CPU time of a process's direct children (the daemon's anvil nodes), in ms; 0 when it has none. */
export function childrenCpuMs(pid: number): number {
  let children: number[] = []
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {}
  return children.reduce((sum, c) => {
    try {
      return sum + cpuMs(c)
    } catch {
      return sum
    }
  }, 0)
}

/**
 * Waits (at most 30 s) until the daemon and its children used under 8% of a core for a second (idle, they use ~4%).
 * After its ready line `parx serve` still works in the background (the platform's ERC-4337 stack:
 * contracts deployed, alto started, ~1 s of CPU on this machine); timed requests that meet it
 * measure that start-up on 2 cores, not the payment path. Returns how long it waited.
 */
export async function daemonSettled(pid: number): Promise<number> {
  const t0 = performance.now()
  while (performance.now() - t0 < 30_000) {
    const a = cpuMs(pid) + childrenCpuMs(pid)
    await new Promise((r) => setTimeout(r, 1000))
    if (cpuMs(pid) + childrenCpuMs(pid) - a < 80) break
  }
  return Math.round(performance.now() - t0)
}

/** Gives `to` 10 USDC from the local profile's faucet (`api`: the daemon's API URL). */
export async function faucetUsdc(api: string, to: string): Promise<void> {
  const r = await fetch(`${api}/api/local/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, token: 'USDC', amount: '10' }),
  })
  if (!r.ok) throw new Error(`faucet answered ${r.status}`)
}

/** A new EVM account holding 10 USDC and no ETH. */
export async function fundedAccount(api: string): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await faucetUsdc(api, account.address)
  return account
}
