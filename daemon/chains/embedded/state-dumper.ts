import { Worker } from 'node:worker_threads'
import { BaseError } from '../../../src/errors/base.js'

export type StateDumperOptions = {
  rpcUrl: string
  statePath: string
  /**
   * What the daemon sends the chain (requestsSentTo): [0] requests, so it is not quiet while they
   * come; [1] node calls that change state without a block, each a change as a new block is.
   */
  requests: Int32Array
  /** How often the chain's head is looked at. */
  pollMs?: number
  /**
   * A chain that mined nothing and was asked nothing by the daemon for this long is quiet: its new state is written
   * then.
   */
  quietMs?: number
  /** Under constant load (never quiet), new state is still written at least this often. */
  maxDelayMs?: number
  /**
   * With no change seen, the state is read this often anyway (a node call from outside the daemon) and written if it
   * changed.
   */
  backstopMs?: number
  /**
   * While the daemon sends the chain nothing, its head is still looked at this often: a block mined
   * by a client of its own (the chains of `parx chains`, whose users are all outside this process)
   * is then written within this, not only at the backstop.
   */
  idleLookMs?: number
  /**
   * Blocks (and their transactions) older than this many below the head are left out of the file:
   * anvil's dump holds every block and transaction since genesis (2.5 KB per simple transfer), so
   * the file grew without bound. anvil loads a file without them and carries on; those old blocks
   * and receipts are then gone after a restart (parx looks back 1,000 blocks at most).
   */
  keepBlocks?: number
  /** Told after each write, with a head block it holds at least (tests). */
  onWrite?(block: number): void
  /** Told if the worker dies (the state file is then written only by anvil's exit dump). */
  onError?(e: Error): void
}

export type StateDumper = { stop(): Promise<void> }

const DEFAULTS = {
  pollMs: 100,
  quietMs: 300,
  maxDelayMs: 10_000,
  backstopMs: 30_000,
  idleLookMs: 2_000,
  keepBlocks: 5_000,
}

/**
 * The worker's loop. Self-contained (modules from process.getBuiltinModule): it is
 * the worker thread's source.
 */
async function dumpLoop(o: Required<Omit<StateDumperOptions, 'onWrite' | 'onError'>>): Promise<never> {
  const fs = process.getBuiltinModule('node:fs')
  const zlib = process.getBuiltinModule('node:zlib')
  const { createHash } = process.getBuiltinModule('node:crypto')
  const { parentPort } = process.getBuiltinModule('node:worker_threads')
  // node:http, not fetch: the thread's first fetch loads Node's bundled undici, ~0.3 s of CPU per thread.
  const http = process.getBuiltinModule('node:http')
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const rpc = (method: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = http.request(
        o.rpcUrl,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('error', reject)
          res.on('end', () => {
            try {
              const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                result?: string
                error?: { message: string }
              }
              if (body.error || typeof body.result !== 'string')
                throw new BaseError('CHAIN_UNAVAILABLE', body.error?.message ?? `${method}: no result`)
              resolve(body.result)
            } catch (e) {
              reject(e)
            }
          })
        },
      )
      req.on('error', reject)
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }))
    })
  // Only a dump with no integer JSON cannot hold exactly (anvil writes big numbers as hex strings)
  // is parsed and written again without its old blocks; any other is written as it came.
  const trimmed = (json: Buffer): Buffer => {
    // A block takes at least ~1.4 KB of the dump: a smaller one has fewer than keepBlocks, and is not parsed.
    if (json.length < o.keepBlocks * 1000) return json
    const text = json.toString('utf8')
    if (/[:[,]\s*-?\d{16,}/.test(text)) return json
    const state = JSON.parse(text) as {
      best_block_number?: number
      blocks?: { header?: { number?: string } }[]
      transactions?: { block_number?: number }[]
    }
    const head = state.best_block_number ?? Number.NaN
    if (!Number.isFinite(head) || !Array.isArray(state.blocks) || state.blocks.length <= o.keepBlocks) return json
    const oldest = head - o.keepBlocks
    state.blocks = state.blocks.filter((b) => !(Number.parseInt(b.header?.number ?? '', 16) <= oldest))
    if (Array.isArray(state.transactions))
      state.transactions = state.transactions.filter(
        (t) => !(typeof t.block_number === 'number' && t.block_number <= oldest),
      )
    return Buffer.from(JSON.stringify(state))
  }
  let head: string | undefined
  let asked = -1
  let stateCalls = 0
  let changedAt = 0
  let activeAt = 0
  // The start counts as a change: parx places code at start (anvil_setCode) without mining.
  let dirtySince: number | undefined = Date.now()
  let readAt = Date.now()
  let written: string | undefined
  // The highest head told to the daemon as held by the file.
  let told = -1
  for (;;) {
    // Idle (all written, quiet, the backstop not due) and the daemon has sent the chain nothing since
    // the last look: sleep until it does (the daemon's transport notifies on every request), for
    // idleLookMs at most, instead of asking the chain for its head every pollMs. The chain mines
    // only when sent a transaction, so a quiet daemon meant 20 RPC calls a second for nothing.
    const idleFor = Date.now() - Math.max(changedAt, activeAt)
    const backstopIn = o.backstopMs - (Date.now() - readAt)
    if (dirtySince === undefined && idleFor >= o.quietMs && backstopIn > 0) {
      const sleepMs = Math.min(backstopIn, o.idleLookMs)
      const w = (
        Atomics as unknown as {
          waitAsync(
            a: Int32Array,
            i: number,
            v: number,
            ms: number,
          ): { async: boolean; value: Promise<string> | string }
        }
      ).waitAsync(o.requests, 0, asked, sleepMs)
      // The timer also keeps the worker alive: a pending waitAsync alone holds no handle, and the thread would end.
      let timer: ReturnType<typeof setTimeout> | undefined
      if (w.async) await Promise.race([w.value, new Promise((r) => (timer = setTimeout(r, sleepMs)))])
      clearTimeout(timer)
    }
    await new Promise((r) => setTimeout(r, o.pollMs))
    try {
      const n = await rpc('eth_blockNumber')
      const now = Date.now()
      if (n !== head) {
        head = n
        changedAt = now
        dirtySince ??= now
      }
      const a = Atomics.load(o.requests, 0)
      if (a !== asked) {
        asked = a
        activeAt = now
      }
      const c = Atomics.load(o.requests, 1)
      if (c !== stateCalls) {
        stateCalls = c
        changedAt = now
        dirtySince ??= now
      }
      const quiet = now - Math.max(changedAt, activeAt) >= o.quietMs
      const due =
        dirtySince !== undefined ? quiet || now - dirtySince >= o.maxDelayMs : quiet && now - readAt >= o.backstopMs
      if (!due) continue
      // A change during the read is seen by the next look (a new head or count), so this one is done.
      const gz = await rpc('anvil_dumpState')
      dirtySince = undefined
      readAt = now
      const hash = createHash('sha256').update(gz).digest('hex')
      // Unchanged since the last write, which then already held this head (a block mined between
      // that write's head read and its dump): say so, once per head.
      if (hash === written) {
        if (Number(n) > told) parentPort?.postMessage({ block: (told = Number(n)) })
        continue
      }
      const json = trimmed(zlib.gunzipSync(Buffer.from(gz.slice(2), 'hex')))
      const tmp = `${o.statePath}.tmp`
      fs.writeFileSync(tmp, json)
      fs.renameSync(tmp, o.statePath)
      written = hash
      parentPort?.postMessage({ block: (told = Math.max(told, Number(n))) })
    } catch {
      // anvil busy, restarting or stopping: the next round looks again.
    }
  }
}

/**
 * Keeps the embedded chain's state file current, written by parx whole and then renamed into place:
 * when the chain goes quiet after a change (no block, and no request from the daemon, for
 * `quietMs`), at least every `maxDelayMs` under constant load, and never while nothing changes.
 * anvil's own periodic dump (`--state-interval`) rewrote the whole state (10 MB after a few
 * thousand payments) in place every 2 s, busy or idle: mining waited on it, an idle daemon
 * rewrote its disk 40,000 times a day, and a crash
 * during a write cut the file short. anvil_dumpState costs more than that dump (it compresses:
 * ~200 ms of the node's CPU at 10 MB), which is why it waits for a quiet moment; the rest of the
 * work (gunzip, write) is done in a worker thread, off the daemon's event loop.
 *
 * What a crash can lose is what the last write lacks: transactions parx signed are in its outbox
 * and replayed; others sent straight to the chain's RPC since its last quiet moment are lost.
 */
export function keepStateDumped(opts: StateDumperOptions): StateDumper {
  const { onWrite, onError, ...rest } = opts
  // __name: a build with keepNames (tsx, which runs the benches and scripts) wraps the function's
  // inner functions in that module-level helper, which the worker's text alone lacks.
  const source = `
    const __name = (fn) => fn
    const { workerData } = process.getBuiltinModule('node:worker_threads')
    ;(${dumpLoop.toString()})(workerData)
  `
  const worker = new Worker(source, { eval: true, workerData: { ...DEFAULTS, ...rest } })
  if (onWrite) worker.on('message', (m: { block: number }) => onWrite(m.block))
  // Without a listener a worker's error is thrown in the daemon, which would die for a state file.
  worker.on('error', (e) => onError?.(e))
  worker.unref()
  return { stop: async () => void (await worker.terminate()) }
}
