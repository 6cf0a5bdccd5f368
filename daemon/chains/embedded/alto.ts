import { type ChildProcess, spawn } from 'node:child_process'
import type { Address, Hex } from 'viem'
import { BaseError } from '../../../src/errors/index.js'
import { altoScript } from './aa-packages.js'
import { freePort } from './free-port.js'
import { loopbackOnlyFlags } from './loopback-only.js'
import { stopChild } from './stop-child.js'

export type AltoOptions = {
  /** The chain's JSON-RPC URL (127.0.0.1). */
  rpcUrl: string
  entryPoints: readonly Address[]
  /** Keys that submit bundles; each needs ETH. */
  executorKeys: readonly Hex[]
  /** Pays for alto's own simulation contracts at start; needs ETH. */
  utilityKey: Hex
  /** 0 or undefined: a free port. */
  port?: number
  /** Bounded wait for the first answer (default 30 s: alto deploys its simulation contracts first). */
  readyTimeoutMs?: number
}

export type Alto = { url: string; port: number; pid: number; stop(): Promise<void> }

/**
 * Starts the alto ERC-4337 bundler as a child process against a local chain, and resolves once it
 * answers JSON-RPC. Safe mode is off (it needs debug_traceCall JS tracers that anvil lacks) and the
 * instant-bundling endpoint is on, so `pimlico_sendUserOperationNow` bundles at once and answers with
 * the receipt. Alto listens on 127.0.0.1 only (it asks for 0.0.0.0 whatever it is told:
 * loopback-only.ts), and its keys reach it through its environment (`ALTO_*`, which alto reads
 * like its flags; /proc/<pid>/environ is its owner's alone), never its command line, which every
 * local user can read in /proc/<pid>/cmdline. The process is killed if it does not become ready,
 * and `stop` is idempotent.
 *
 * @example
 * const alto = await startAlto({ rpcUrl, entryPoints: [ENTRY_POINT_08], executorKeys: [k1], utilityKey: k2 })
 * try { ... bundlerTransport: http(alto.url) ... } finally { await alto.stop() }
 */
export async function startAlto(o: AltoOptions): Promise<Alto> {
  const script = altoScript()
  const port = o.port || (await freePort('127.0.0.1'))
  // Each flag exactly once: alto turns a repeated flag into an array and exits.
  const args = [
    ...loopbackOnlyFlags(),
    script,
    '--entrypoints',
    o.entryPoints.join(','),
    '--rpc-url',
    o.rpcUrl,
    '--port',
    String(port),
    '--safe-mode',
    'false',
    '--enable-instant-bundling-endpoint',
    'true',
    '--log-level',
    'warn',
  ]
  // NODE_OPTIONS cleared: a parent run through tsx or vitest passes loaders alto does not need (and starts slower
  // with).
  const env = {
    ...process.env,
    NODE_OPTIONS: '',
    ALTO_EXECUTOR_PRIVATE_KEYS: o.executorKeys.join(','),
    ALTO_UTILITY_PRIVATE_KEY: o.utilityKey,
  }
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env })
  // Never outlive the process that started it, even when that process exits without calling stop.
  const reap = () => child.kill('SIGKILL')
  process.once('exit', reap)
  child.once('exit', () => process.off('exit', reap))
  let output = ''
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000))
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const url = `http://127.0.0.1:${port}/rpc`
  try {
    await waitReady(url, child, o.readyTimeoutMs ?? 30_000, () => output)
  } catch (e) {
    await stopChild(child, 3_000)
    throw e
  }
  let stopping: Promise<void> | undefined
  return { url, port, pid: child.pid!, stop: () => (stopping ??= stopChild(child, 3_000)) }
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new BaseError(
        'BUNDLER_UNAVAILABLE',
        `alto exited (${child.exitCode ?? child.signalCode}) at start: ${output().trim().slice(-1500)}`,
      )
    }
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
        signal: AbortSignal.timeout(1_000),
      })
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new BaseError(
    'BUNDLER_UNAVAILABLE',
    `alto did not answer at ${url} within ${timeoutMs} ms: ${output().trim().slice(-1500)}`,
  )
}
