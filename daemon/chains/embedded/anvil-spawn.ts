import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { assertPortFree } from '../../startup/ports.js'
import { freePort } from './free-port.js'
import { exitDumpOf, prepareStateFile } from './state-file.js'
import { ownProcessGroup, tiedToParent } from './tied-to-parent.js'

/*
 * Spawning anvil, apart from waiting for it and running it (./anvil.ts): `parx serve` spawns its
 * chains before the daemon's modules have loaded (daemon/startup/early-start.ts), so this file
 * imports nothing heavier than node's own modules.
 */

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
}

/** Warnings of a chain's start and stop when no one else hears them: `parx serve`'s stderr. */
export const warnOnStderr = (message: string): void => void process.stderr.write(`parx: ${message}\n`)

/** An anvil process that may not answer yet. */
export type SpawnedAnvil = {
  child: ChildProcess
  host: string
  port: number
  name: string
  statePath?: string
  pidFile?: string
  /** Where its start and stop warn (AnvilOptions.warn). */
  warn: (message: string) => void
  /** The end of what it wrote to stderr, for the error when it does not start. */
  stderr(): string
  /** Set once ./anvil.ts runs it; until then nothing else stops it. */
  adopted: boolean
}

/** The anvil binary from the npm platform package (one process, no shell, no download). */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url)
  const pkg = require.resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return join(dirname(pkg), 'bin', 'anvil')
}

export async function spawnAnvil(opts: AnvilOptions): Promise<SpawnedAnvil> {
  const host = opts.host ?? '127.0.0.1'
  const port = opts.port || (await freePort(host))
  // No block states written to disk: by default anvil keeps the last 500 in memory and writes each
  // older one, the whole state as JSON, to ~/.foundry/anvil/tmp, in a directory it leaves behind
  // when stopped (225 MB after 1,500 blocks; this machine had gathered 72 GB). State at blocks
  // older than the last 500 is then unavailable; nothing in parx reads that far back.
  const args = [
    '--host',
    host,
    '--port',
    String(port),
    '--chain-id',
    String(opts.chainId),
    '--accounts',
    '0',
    '--silent',
    '--max-persisted-states',
    '0',
  ]
  const statePath = opts.statePath
  const warn = opts.warn ?? warnOnStderr
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
  if (opts.port) await assertPortFree(host, port, `the ${name} chain`)
  // Tied to the daemon's life (it dies with it, even on a SIGKILL), and in its own process group
  // (in the daemon's session, see ownProcessGroup): Ctrl-C in the terminal of `parx serve` signals
  // the daemon, which stops anvil itself (SIGTERM, exit dump written) after the work that still needs
  // the chain has finished.
  const group = ownProcessGroup([anvilBinary(), ...args])
  const [cmd, ...cmdArgs] = tiedToParent(group.argv)
  const child = spawn(cmd!, cmdArgs, { stdio: ['ignore', 'ignore', 'pipe'], detached: group.detached })
  if (pidFile) writeFileSync(pidFile, String(child.pid))
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)))
  return { child, host, port, name, statePath, pidFile, warn, stderr: () => stderr, adopted: false }
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
