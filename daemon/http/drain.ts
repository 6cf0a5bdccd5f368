import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'

/** The stop bound when the config names none (docs/operations.md "Stopping and rolling restarts"). */
export const DEFAULT_DRAIN_SECONDS = 10

/**
 * A connection accepted just before the listener closed may not have sent its request yet: it is
 * given this long to do so (within the bound) before it counts as idle, so a request already on
 * its way is answered instead of meeting a closed socket.
 */
const FRESH_SOCKET_MS = 1_000

/**
 * The listener stays open until no request (health checks aside) has arrived for this long: closing
 * it resets connections still in the kernel's accept queue, whose requests were already sent, so a
 * balancer must have stopped sending first (it sees readiness answer 503 on its next check). A
 * daemon nobody is calling closes it at once.
 */
const QUIET_MS = 1_000
const HEALTH = /^\/api\/(readiness|health)(\?|$)/

export type DrainResult = { inFlightAtStart: number; cut: number; ms: number }

export type Drainable = {
  /** True from the moment a stop began: readiness answers 503 "draining". */
  readonly draining: boolean
  /** Requests being answered now. */
  inFlight(): number
  /**
   * Stops accepting connections, answers every request in flight and every one that arrives on an
   * open connection (each with `Connection: close`), and closes each connection once it is idle
   * (a request read on one after that is dropped with it, never processed unanswered);
   * after `boundMs` whatever is still open is cut. Once only: a second call gets the first's result.
   */
  drain(boundMs: number): Promise<DrainResult>
}

/**
 * Graceful stop for the API's HTTP server. Node's `server.close()` also closes idle keep-alive
 * connections at once (including one that was just accepted and whose request is still on the
 * wire), and parx used to follow it with `closeAllConnections()`, which reset requests in flight:
 * a platform `pay` waiting on its seller lost its answer though the payment went on. Here
 * readiness turns 503 at once, the listener closes once requests stopped arriving (then a new
 * connect is refused, which a client or balancer can retry safely), and connections are closed
 * only when they carry nothing.
 */
export function drainable(server: Server, opts: { quietMs?: number } = {}): Drainable {
  const quietMs = opts.quietMs ?? QUIET_MS
  let lastWork = 0
  const open = new Map<Socket, { since: number; requests: number }>()
  const answering = new Set<ServerResponse>()
  let draining = false
  let wake: (() => void) | undefined
  let result: Promise<DrainResult> | undefined

  server.on('connection', (socket: Socket) => {
    open.set(socket, { since: Date.now(), requests: 0 })
    socket.once('close', () => {
      open.delete(socket)
      wake?.()
    })
  })
  // Connections this drain closed as idle: a request still read on one was sent before the client
  // saw the close, and it will never read an answer, so it is not processed at all (dropped with
  // its connection; the client sees a reset before any answer, which is safe to retry).
  const closing = new WeakSet<Socket>()
  // The app's listeners are called from here, so a request on such a connection never reaches them.
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>
  server.removeAllListeners('request')
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (closing.has(req.socket)) return void req.socket.destroy()
    const s = open.get(req.socket)
    if (s) s.requests++
    answering.add(res)
    if (!HEALTH.test(req.url ?? '')) lastWork = Date.now()
    // The client must not send another request on this connection: it is about to close.
    if (draining) res.setHeader('connection', 'close')
    res.once('close', () => {
      answering.delete(res)
      // An idle connection during a drain is closed now: its next request would find it gone.
      if (draining && !res.req.socket.destroyed) closeIfIdle(res.req.socket)
      wake?.()
    })
    for (const h of handlers) h.call(server, req, res)
  })

  const closeIfIdle = (socket: Socket) => {
    for (const res of answering) if (res.req.socket === socket) return
    // `Connection: close` answers end their socket themselves; a keep-alive one left before the drain is ended here.
    closing.add(socket)
    socket.end()
  }

  const settled = () => {
    if (answering.size > 0) return false
    const now = Date.now()
    for (const s of open.values()) if (s.requests === 0 && now - s.since < FRESH_SOCKET_MS) return false
    return true
  }

  return {
    get draining() {
      return draining
    },
    inFlight: () => answering.size,
    drain(boundMs) {
      return (result ??= (async () => {
        const started = Date.now()
        draining = true
        const inFlightAtStart = answering.size
        for (const res of answering) if (!res.headersSent) res.setHeader('connection', 'close')
        // Connections that served their requests before the drain and sit idle are closed now.
        for (const [socket, s] of open) if (s.requests > 0) closeIfIdle(socket)
        const deadline = started + boundMs
        // Requests still arriving are answered (Connection: close) until the balancer has stopped sending.
        while (Date.now() - lastWork < quietMs && Date.now() < deadline) await sleep(Math.min(50, quietMs))
        // The listener only (net.Server's close): http.Server's would also drop idle connections now.
        if (server.listening) NetServer.prototype.close.call(server)
        while (!settled() && Date.now() < deadline) {
          // Woken by any request or connection ending; the timer only covers fresh sockets' grace.
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now())))
            wake = () => {
              clearTimeout(t)
              resolve()
            }
          })
          wake = undefined
        }
        const cut = answering.size
        server.closeAllConnections()
        return { inFlightAtStart, cut, ms: Date.now() - started }
      })())
    },
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
