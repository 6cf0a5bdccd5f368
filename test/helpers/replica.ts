import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { tiedToParent } from '../../daemon/chains/embedded/tied-to-parent.js'

export type ReplicaProcess = { child: ChildProcess; api: string; exited: Promise<void> }

export type ReplicaOptions = {
  name: string
  role: 'api' | 'worker'
  dataDir: string
  /** 0 (default): a free one. */
  port?: number
  /** The chains' PARX_* variables (`startStandaloneChains().env`) and the shared PostgreSQL store. */
  chainsEnv: NodeJS.ProcessEnv
  storeUrl: string
  /** Its own process group, so a kill -9 of the group takes its anvil-free children too. */
  detached?: boolean
}

/**
 * `parx --output json serve --role <role>` as an operator runs a hosted replica: on the shared
 * store and the chains' real-network settings, until its ready line. The load in these tests comes
 * from this one machine's loopback: it is exempt from rate limits, as on the local profile (a
 * testnet daemon otherwise limits it like any client, shared by every replica).
 */
export async function serveReplica(o: ReplicaOptions): Promise<ReplicaProcess> {
  const argv = [
    join(import.meta.dirname, '..', '..', 'bin', 'parx.js'),
    '--output',
    'json',
    'serve',
    '--role',
    o.role,
    '--port',
    String(o.port ?? 0),
    '--data-dir',
    o.dataDir,
    '--log-level',
    'info',
  ]
  const [cmd, ...rest] = tiedToParent([process.execPath, ...argv])
  const child = spawn(cmd!, rest, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: o.detached ?? false,
    env: {
      ...process.env,
      ...o.chainsEnv,
      PARX_STORE_URL: o.storeUrl,
      PARX_RUNTIME_DIR: join(o.dataDir, 'run'),
      PARX_MAX_USD: '1000000',
      PARX_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
    },
  })
  let stderr = ''
  child.stderr!.on('data', (d) => (stderr += d))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`${o.name} exited ${code}: ${stderr}`)))
  })
  return { child, api: JSON.parse(line).urls.api as string, exited }
}
