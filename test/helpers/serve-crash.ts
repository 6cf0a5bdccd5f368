import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { vi } from 'vitest'
import { stateHead } from './state-file.js'

export type ServeProcess = { child: ChildProcess; api: string; rpc: Record<string, string>; pid: number }

/** `parx serve -o json` as a user runs it, in its own process group; resolves with its ready line. */
export async function spawnServe(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['bin/parx.js', '-o', 'json', 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
    {
      env: { ...process.env, NO_COLOR: '1', PARX_API_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  )
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const ready = await new Promise<{ urls: { api: string; rpc: Record<string, string> } }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      // With -o json a start that fails says why on stdout.
      stderr += l
      try {
        const j = JSON.parse(l)
        if (j.ready) resolve(j)
      } catch {}
    })
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
  })
  return { child, api: ready.urls.api, rpc: ready.urls.rpc, pid: child.pid! }
}

/**
 * A hard crash of the whole machine's worth of parx: SIGKILL to the daemon's process group and to
 * the anvils it started (they run in process groups of their own, found by their pid files), at
 * once, so no one writes anything on the way down.
 */
export function crash(p: ServeProcess, dataDir: string): Promise<void> {
  const anvils = readdirSync(join(dataDir, 'chains'))
    .filter((f) => f.endsWith('.pid'))
    .map((f) => Number(readFileSync(join(dataDir, 'chains', f), 'utf8')))
  const exited = new Promise<void>((resolve) =>
    p.child.exitCode !== null || p.child.signalCode !== null ? resolve() : p.child.once('exit', () => resolve()),
  )
  process.kill(-p.pid, 'SIGKILL')
  for (const pid of anvils) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  return exited
}

/** Stops a serve process cleanly (SIGTERM: it stops its anvils, which write their state). */
export function stopServe(p: ServeProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return Promise.resolve()
  const exited = new Promise<void>((resolve) => p.child.once('exit', () => resolve()))
  p.child.kill('SIGTERM')
  return exited
}

/**
 * The end of a crash test's daemon: SIGTERM, and a daemon that does not stop within 20 s is a
 * failure of its own (killed, so it is not left running).
 */
export async function stopOrCrash(p: ServeProcess, dataDir: string): Promise<boolean> {
  const stopped = await Promise.race([
    stopServe(p).then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), 20_000)),
  ])
  if (!stopped) await crash(p, dataDir)
  return stopped
}

/** The operator token of the daemon of `dataDir` (its keys.json), as request headers. */
export function operatorHeaders(dataDir: string): { authorization: string } {
  return {
    authorization: `Bearer ${JSON.parse(readFileSync(join(dataDir, 'keys.json'), 'utf8')).operatorToken as string}`,
  }
}

/** A new partner key on the daemon of `dataDir`, as request headers. */
export async function partnerHeaders(
  p: ServeProcess,
  dataDir: string,
  name = 'crash',
): Promise<{ 'x-api-key': string }> {
  const res = await fetch(`${p.api}/api/operator/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...operatorHeaders(dataDir) },
    body: JSON.stringify({ name, owner: '0x00000000000000000000000000000000000000aa' }),
  })
  return { 'x-api-key': ((await res.json()) as { key: string }).key }
}

export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const j = (await res.json()) as { result?: T; error?: unknown }
  if (j.error) throw new Error(`${method}: ${JSON.stringify(j.error)}`)
  return j.result as T
}

/**
 * Until the chain's state file (written at its last quiet moment) holds its current head: from
 * then on, a crash puts at risk only what comes next, which is what a crash test is about.
 */
export async function untilStateWritten(p: ServeProcess, dataDir: string, network = 'local-base'): Promise<void> {
  const path = join(dataDir, 'chains', `${network}.json`)
  const head = async () => Number(await rpc<string>(p.rpc[network]!, 'eth_blockNumber'))
  await vi.waitFor(
    async () => {
      if (stateHead(path) !== (await head())) throw new Error(`${path} does not hold the head yet`)
    },
    { timeout: 30_000, interval: 50 },
  )
}
