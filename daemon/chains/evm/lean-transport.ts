import { createRequire } from 'node:module'
import type { Pool as UndiciPool } from 'undici'
import { HttpRequestError, RpcRequestError } from 'viem'
import { rpcEndpoint } from '../rpc-auth.js'

/**
 * undici's Pool and request API without the rest of the package (fetch, WebSocket, cache, mocks,
 * the global dispatcher): its index.js cost parx serve's start ~80 ms of CPU more (profiled), and
 * every chain client needs a Pool before the ready line. The request API is put on Dispatcher's
 * prototype as index.js does; whatever loads the whole package later does the same again.
 * Pinned to undici 7's layout (package.json); a change shows at once, in every chain client.
 */
const load = createRequire(import.meta.url)
Object.assign(load('undici/lib/dispatcher/dispatcher.js').prototype, load('undici/lib/api/index.js'))
const Pool = load('undici/lib/dispatcher/pool.js') as typeof UndiciPool

/**
 * What this process sent each node URL, in shared memory a worker thread can read
 * (daemon/chains/embedded/state-dumper.ts): [0] requests, [1] of them node calls that change state
 * without mining (anvil_setBalance, anvil_setCode, evm_revert, ...). Counters wrap around: compare, never subtract.
 */
const sent = new Map<string, Int32Array>()
const REQUESTS = 0
const STATE_CALLS = 1
const changesState = (method: string) => /^(anvil|evm|hardhat)_/.test(method)

export function requestsSentTo(url: string): Int32Array {
  let counter = sent.get(url)
  if (!counter) sent.set(url, (counter = new Int32Array(new SharedArrayBuffer(8))))
  return counter
}

/**
 * An EIP-1193 `request` over keep-alive undici connections, the transport of every chain client.
 * viem's http transport goes through fetch and builds a timeout error object for every call; on the
 * swap path, which makes several calls per swap, that overhead was a third of the daemon's CPU.
 * Errors have the http transport's shapes (RpcRequestError with the node's code and data,
 * HttpRequestError), so callers see no difference.
 */
export function leanRpc(rpcUrl: string, connections = 32) {
  // Userinfo credentials go as Basic auth (daemon/chains/rpc-auth.ts); errors name the URL without them.
  const { url, headers } = rpcEndpoint(rpcUrl)
  const u = new URL(url)
  const pool = new Pool(u.origin, { connections, pipelining: 1 })
  const path = `${u.pathname}${u.search}` || '/'
  const requestHeaders = { ...headers, 'content-type': 'application/json' }
  let id = 0
  const counter = requestsSentTo(rpcUrl)
  return {
    async request({ method, params }: { method: string; params?: unknown }): Promise<unknown> {
      Atomics.add(counter, REQUESTS, 1)
      // Wakes an embedded chain's state dumper that sleeps while the daemon is quiet (embedded/state-dumper.ts).
      Atomics.notify(counter, REQUESTS)
      if (changesState(method)) Atomics.add(counter, STATE_CALLS, 1)
      const body = { jsonrpc: '2.0', id: ++id, method, params: params ?? [] }
      let reply: { result?: unknown; error?: { code: number; message: string; data?: unknown } }
      try {
        const res = await pool.request({ path, method: 'POST', headers: requestHeaders, body: JSON.stringify(body) })
        reply = (await res.body.json()) as typeof reply
      } catch (e) {
        throw new HttpRequestError({ url, body, cause: e as Error, details: (e as Error).message })
      }
      if (reply.error) throw new RpcRequestError({ body, error: reply.error, url })
      return reply.result
    },
    close: () => pool.close(),
  }
}
