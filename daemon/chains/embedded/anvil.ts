import type { ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { request } from 'node:http'
import { BaseError } from '../../../src/errors/index.js'
import { requestsSentTo } from '../evm/lean-transport.js'
import { type AnvilOptions, type SpawnedAnvil, spawnAnvil } from './anvil-spawn.js'
import { keepStateDumped, type StateDumper } from './state-dumper.js'
import { adoptExitDump, unreadableStateError } from './state-file.js'
import { stopChild } from './stop-child.js'

export { type AnvilOptions, anvilBinary } from './anvil-spawn.js'

/** How to spawn it, or the anvil spawned already (./local-anvils.ts), which is waited for and run from here. */
export type StartAnvilOptions = (AnvilOptions | { spawned: Promise<SpawnedAnvil> }) & {
  /**
   * The state file's writer (a worker thread, ~0.2 s of CPU to start) starts once this resolves:
   * the daemon passes its ready line, so its start does not wait for that CPU. Until then the
   * file is what the chain loaded; anvil's exit dump still covers a stop.
   */
  dumpsAfter?: Promise<unknown>
}

export type Anvil = { rpcUrl: string; port: number; pid: number; stop(): Promise<void> }

export async function startAnvil(opts: StartAnvilOptions): Promise<Anvil> {
  const spawned = await ('spawned' in opts ? opts.spawned : spawnAnvil(opts))
  spawned.adopted = true
  const { child, host, port, name, statePath, pidFile, warn } = spawned
  const rpcUrl = `http://${host}:${port}`
  try {
    await waitReady(rpcUrl, child, spawned.stderr, (reason) => unreadableStateError(statePath!, name, reason))
  } catch (e) {
    child.kill('SIGKILL')
    throw e
  }
  let dumper: StateDumper | undefined
  let stopping = false
  const startDumper = () => {
    if (!statePath || stopping) return
    dumper = keepStateDumped({
      rpcUrl,
      statePath,
      requests: requestsSentTo(rpcUrl),
      onError: (e) =>
        warn(
          `${statePath} is no longer written while the chain runs (${e.message}); anvil still writes it when it stops`,
        ),
    })
  }
  if (opts.dumpsAfter !== undefined) opts.dumpsAfter.then(startDumper, () => {})
  else startDumper()
  const stop = once(async () => {
    stopping = true
    await dumper?.stop()
    await stopChild(child, 5_000)
    if (statePath) adoptExitDump(statePath, warn)
    if (pidFile) rmSync(pidFile, { force: true })
  })
  return { rpcUrl, port, pid: child.pid!, stop }
}

async function waitReady(
  rpcUrl: string,
  child: ChildProcess,
  stderr: () => string,
  unreadable: (reason: string) => BaseError,
): Promise<void> {
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      // A state file whose ends look whole but whose inside anvil cannot parse (./state-file.ts).
      const refused = /for '--load-state <PATH>': (.*)/.exec(stderr())
      if (refused)
        throw unreadable(`anvil cannot load it: ${refused[1]!.replace(/^failed to parse json file: "[^"]*": /, '')}`)
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
    const req = request(
      rpcUrl,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' }, timeout: 1_000 },
      (res) => {
        res.resume()
        res.once('end', () => resolve(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300))
        res.once('error', () => resolve(false))
      },
    )
    // A listener that accepts and never answers must not hold the start forever.
    req.once('timeout', () => req.destroy())
    // Not listening yet.
    req.once('error', () => resolve(false))
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
  })
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined
  return () => (p ??= fn())
}
