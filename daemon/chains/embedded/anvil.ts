import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { BaseError } from '../../../src/errors/index.js'
import { assertPortFree } from '../../startup/ports.js'
import { freePort } from './free-port.js'
import { requestsSentTo } from '../evm/lean-transport.js'
import { keepStateDumped, type StateDumper } from './state-dumper.js'
import { adoptExitDump, exitDumpOf, prepareStateFile, unreadableStateError } from './state-file.js'
import { ownProcessGroup, tiedToParent } from './tied-to-parent.js'

export type AnvilOptions = {
  chainId: number
  /** 0 or undefined: a free port. */
  port?: number
  host?: string
  /** The chain starts from this file and it is kept current (./state-dumper.ts), so state survives restarts. */
  statePath?: string
  /** Names the chain in errors (e.g. a taken port) and in `--reset-chain`. */
  name?: string
  /** Start the chain over: its state file is moved aside (`parx serve --reset-chain <name>`). */
  reset?: boolean
  /** Told when an exit dump was dropped or the chain was started over (default: stderr). */
  warn?: (message: string) => void
  /** Told once the process is spawned, before it answers: the daemon then starts its CPU-bound set-up (daemon/chains/start.ts). */
  onSpawned?: () => void
  /**
   * The state file's writer (a worker thread, ~0.2 s of CPU to start) starts once this resolves:
   * the daemon passes its ready line, so its start does not wait for that CPU. Until then the
   * file is what the chain loaded; anvil's exit dump still covers a stop.
   */
  dumpsAfter?: Promise<unknown>
}

export type Anvil = { rpcUrl: string; port: number; pid: number; stop(): Promise<void> }

/** The anvil binary from the npm platform package (one process, no shell, no download). */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url)
  const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return join(dirname(pkg), 'bin', 'anvil')
}

export async function startAnvil(opts: AnvilOptions): Promise<Anvil> {
  const host = opts.host ?? '127.0.0.1'
  const port = opts.port || (await freePort(host))
  // No block states written to disk: by default anvil keeps the last 500 in memory and writes each
  // older one, the whole state as JSON, to ~/.foundry/anvil/tmp, in a directory it leaves behind
  // when stopped (225 MB after 1,500 blocks; this machine had gathered 72 GB). State at blocks
  // older than the last 500 is then unavailable; nothing in parx reads that far back.
  const args = ['--host', host, '--port', String(port), '--chain-id', String(opts.chainId), '--accounts', '0', '--silent', '--max-persisted-states', '0']
  const statePath = opts.statePath
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`parx: ${m}\n`))
  const pidFile = statePath ? `${statePath}.pid` : undefined
  if (pidFile) await reapOrphan(pidFile)
  const name = opts.name ?? `chain ${opts.chainId}`
  if (statePath) {
    prepareStateFile(statePath, { name, reset: opts.reset, warn })
    if (existsSync(statePath)) args.push('--load-state', statePath)
    // anvil writes only on its way out (parx writes the state file while it runs); its periodic
    // dump cannot be turned off, so it is put a day apart.
    args.push('--dump-state', exitDumpOf(statePath), '--state-interval', '86400')
  }
  if (opts.port) await assertPortFree(host, port, `the ${opts.name ?? `chain ${opts.chainId}`} chain`)
  // Tied to the daemon's life (it dies with it, even on a SIGKILL), and in its own process group
  // (in the daemon's session, see ownProcessGroup): Ctrl-C in the terminal of `parx serve` signals
  // the daemon, which stops anvil itself (SIGTERM, exit dump written) after the work that still needs
  // the chain has finished.
  const group = ownProcessGroup([anvilBinary(), ...args])
  const [cmd, ...cmdArgs] = tiedToParent(group.argv)
  const child = spawn(cmd!, cmdArgs, { stdio: ['ignore', 'ignore', 'pipe'], detached: group.detached })
  if (pidFile) writeFileSync(pidFile, String(child.pid))
  opts.onSpawned?.()
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
  const rpcUrl = `http://${host}:${port}`
  try {
    await waitReady(rpcUrl, child, () => stderr, (reason) => unreadableStateError(statePath!, name, reason))
  } catch (e) {
    child.kill('SIGKILL')
    throw e
  }
  let dumper: StateDumper | undefined
  let stopping = false
  const startDumper = () => {
    if (!statePath || stopping) return
    dumper = keepStateDumped({
      rpcUrl, statePath, requests: requestsSentTo(rpcUrl),
      onError: (e) => warn(`${statePath} is no longer written while the chain runs (${e.message}); anvil still writes it when it stops`),
    })
  }
  if (opts.dumpsAfter) opts.dumpsAfter.then(startDumper, () => {})
  else startDumper()
  const stop = once(async () => {
    stopping = true
    await dumper?.stop()
    await stopChild(child)
    if (statePath) adoptExitDump(statePath, warn)
    if (pidFile) rmSync(pidFile, { force: true })
  })
  return { rpcUrl, port, pid: child.pid!, stop }
}

/**
 * A daemon killed with SIGKILL leaves its anvil running, holding the port and the state file.
 * The pid file lets the next start stop that orphan (only if it still is an anvil).
 */
async function reapOrphan(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8'))
  let cmdline = ''
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return
  }
  if (!cmdline.includes('anvil')) return
  process.kill(pid, 'SIGTERM')
  for (let i = 0; i < 200 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 25))
}

async function waitReady(rpcUrl: string, child: ChildProcess, stderr: () => string, unreadable: (reason: string) => BaseError): Promise<void> {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      // A state file whose ends look whole but whose inside anvil cannot parse (./state-file.ts).
      const refused = /for '--load-state <PATH>': (.*)/.exec(stderr())
      if (refused) throw unreadable(`anvil cannot load it: ${refused[1]!.replace(/^failed to parse json file: "[^"]*": /, '')}`)
      throw new BaseError('CHAIN_UNAVAILABLE', `anvil exited with code ${child.exitCode} at start: ${stderr().trim()}`)
    }
    if (await answers(rpcUrl)) return
    // anvil answers ~0.1 s after its spawn, and the start waits for it: asked often at first (a
    // refused connection costs little), then less.
    await new Promise((r) => setTimeout(r, Date.now() < deadline - 19_000 ? 5 : 25))
  }
  throw new BaseError('CHAIN_UNAVAILABLE', `anvil did not answer at ${rpcUrl} within 20 s: ${stderr().trim()}`)
}

/**
 * Whether the node answers eth_chainId, over node:http: the first fetch of a process loads Node's
 * bundled undici (~50 ms of CPU, profiled in the start of parx serve) for this one call.
 */
function answers(rpcUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(rpcUrl, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' }, timeout: 1_000 }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300))
      res.once('error', () => resolve(false))
    })
    // A listener that accepts and never answers must not hold the start forever.
    req.once('timeout', () => req.destroy())
    // Not listening yet.
    req.once('error', () => resolve(false))
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
  })
}

/** SIGTERM lets anvil write its exit dump; SIGKILL only if it does not exit in time. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined
  return () => (p ??= fn())
}
