import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type WebSocket from 'ws'
import * as wsModule from 'ws'
import { answerParserErrors } from '../http/node-errors.js'
import { stringifyJson } from './json.js'
import type { LocalSvm } from './local-svm.js'
import { type RpcContext, rpcMethods } from './methods/index.js'
import { handlePayload } from './rpc-dispatch.js'
import { RpcCode } from './rpc-error.js'
import { airdropRation, rpcLimits } from './rpc-limits.js'
import { attachSubscriptions } from './ws-subscriptions.js'

// ws v8's ESM entry exports WebSocketServer by name; the @types/ws in the tree (v7, via jayson)
// only knows the same class as WebSocket.Server.
const { WebSocketServer } = wsModule as unknown as { WebSocketServer: typeof WebSocket.Server }

export type StartSolanaRpcParameters = {
  /**
   * The cluster, or how to get it when it is built on first use (a restarted daemon listens before
   * LiteSVM is built, so its ready line never waits for it): requests and websocket clients are
   * then held until it is up.
   */
  svm: LocalSvm | (() => Promise<LocalSvm>)
  /** Default 127.0.0.1. */
  host?: string
  /** HTTP port; the WebSocket listens on port + 1. 0 picks a free pair. */
  port?: number
  /** What getGenesisHash answers (default: the local cluster's). */
  genesisHash?: string
  /** Told about failures that are our bugs (the client only sees "Internal error"). */
  onInternalError?: (error: unknown) => void
}

export type SolanaRpcServer = {
  rpcUrl: string
  wsUrl: string
  port: number
  /**
   * The same JSON-RPC answered in this process, for the daemon's own Connection to its embedded
   * cluster: one request is then a function call instead of a loopback HTTP exchange (a socket
   * write, HTTP parsing and undici's streams at both ends, which cost more than most methods do).
   */
  fetch: typeof fetch
  stop: () => Promise<void>
}

const MAX_BODY_BYTES = rpcLimits.maxBodyBytes
const PORT_ATTEMPTS = 20

/** A JSON-RPC error for a request that never reached a method (id null, as a node answers). */
export const rpcErrorBody = (status: number, message: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: status >= 500 ? RpcCode.INTERNAL_ERROR : RpcCode.INVALID_REQUEST, message },
  })

function answerError(res: ServerResponse, status: number, message: string): void {
  const text = rpcErrorBody(status, message)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

// An oversized body is read and dropped (so the client gets to read the 413 instead of a reset),
// up to this much; past it (or declared past it) the 413 goes at once, with Connection: close, and
// the connection ends after it. Destroying the request here instead cut the socket before the 413
// was written.
const MAX_DRAIN_BYTES = 4 * 1024 * 1024

/** The body as text, or undefined when it is larger than a node accepts (never held in memory). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const declared = Number(req.headers['content-length'] ?? 0)
    if (declared > MAX_DRAIN_BYTES) return resolve(undefined)
    let tooLarge = declared > MAX_BODY_BYTES
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) tooLarge = true
      if (!tooLarge) chunks.push(chunk)
      else if (size > MAX_DRAIN_BYTES) resolve(undefined)
    })
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** The context now, or once the cluster is up: no promise hop per request once it is. */
type ContextOf = () => RpcContext | Promise<RpcContext>

function httpHandler(contextOf: ContextOf) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('access-control-allow-origin', '*')
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-methods': 'POST, GET, OPTIONS',
        'access-control-allow-headers': 'content-type, solana-client',
      })
      res.end()
      return
    }
    if (req.method === 'GET' && req.url === '/health') {
      res.end('ok')
      return
    }
    if (req.method !== 'POST') return answerError(res, 405, `Method not allowed: send JSON-RPC as POST`)
    const body = await readBody(req).catch(() => undefined)
    if (body === undefined) {
      res.setHeader('connection', 'close')
      return answerError(res, 413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`)
    }
    const ctx = await contextOf()
    const response = await handlePayload(body, rpcMethods, { ...ctx, client: req.socket.remoteAddress ?? 'unknown' })
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(response === undefined ? '' : stringifyJson(response))
  }
}

/** What web3.js reads of a fetch response (status, ok, statusText, text()): no stream to build for a string we hold. */
const inProcessResponse = (status: number, text: string) =>
  ({
    status,
    ok: status < 300,
    statusText: status < 300 ? 'OK' : 'Error',
    text: async () => text,
    json: async () => JSON.parse(text),
  }) as unknown as Response

/** `SolanaRpcServer.fetch`: the HTTP handler's answers without the HTTP (same limits, same JSON). */
function inProcessFetch(
  contextOf: ContextOf,
  onInternalError: RpcContext['onInternalError'],
  stopped: () => boolean,
): typeof fetch {
  return (async (_input: unknown, init?: { body?: unknown }) => {
    // As a stopped server's socket would: the caller sees a failed fetch, not a closed database.
    if (stopped()) throw new TypeError('fetch failed: the embedded Solana RPC has stopped')
    const body = typeof init?.body === 'string' ? init.body : ''
    if (Buffer.byteLength(body) > MAX_BODY_BYTES)
      return inProcessResponse(413, rpcErrorBody(413, `Payload too large: at most ${MAX_BODY_BYTES} bytes`))
    try {
      const ctx = await contextOf()
      const response = await handlePayload(body, rpcMethods, { ...ctx, client: 'in-process' })
      return inProcessResponse(200, response === undefined ? '' : stringifyJson(response))
    } catch (e) {
      onInternalError?.(e)
      return inProcessResponse(500, rpcErrorBody(500, 'Internal error'))
    }
  }) as typeof fetch
}

/** Serves requests; a failure here is our bug, answered 500 rather than taking the daemon down. */
function safeHandler(contextOf: ContextOf, onInternalError: RpcContext['onInternalError']) {
  const handle = httpHandler(contextOf)
  return (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((e: unknown) => {
      onInternalError?.(e)
      if (!res.headersSent) answerError(res, 500, 'Internal error')
      else res.end()
    })
  }
}

const listen = (server: Server, host: string, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port))
  })

const listenWs = (host: string, port: number) =>
  new Promise<WebSocket.Server>((resolve, reject) => {
    // Node's own EADDRINUSE shape, which the port retry below reads (its code is a string of Node's, not ours).
    // biome-ignore lint/plugin: see above
    if (port > 65535) return reject(Object.assign(new Error('no port above 65535'), { code: 'EADDRINUSE' }))
    const wss = new WebSocketServer({ host, port, maxPayload: MAX_BODY_BYTES })
    wss.once('error', reject)
    wss.once('listening', () => resolve(wss))
  })

/**
 * Serves the embedded cluster as a Solana node does: JSON-RPC over HTTP on `port` and pubsub
 * over WebSocket on `port + 1` (web3.js derives its ws URL that way, like solana-test-validator's
 * 8899/8900).
 *
 * @example
 * const rpc = await startSolanaRpc({ svm, port: 0 })
 * const connection = new Connection(rpc.rpcUrl, 'confirmed')
 */
export async function startSolanaRpc(params: StartSolanaRpcParameters): Promise<SolanaRpcServer> {
  const host = params.host ?? '127.0.0.1'
  const contextFor = (svm: LocalSvm): RpcContext => ({
    svm,
    genesisHash: params.genesisHash,
    onInternalError: params.onInternalError,
    airdrops: airdropRation(),
  })
  const svm = params.svm
  let ctx = typeof svm === 'function' ? undefined : contextFor(svm)
  let ctxReady: Promise<RpcContext> | undefined
  const contextOf: ContextOf = () =>
    ctx ?? (ctxReady ??= (svm as () => Promise<LocalSvm>)().then((s) => (ctx = contextFor(s))))
  for (let attempt = 1; ; attempt++) {
    const http = createServer(safeHandler(contextOf, params.onInternalError))
    answerParserErrors(http, rpcErrorBody)
    const port = await listen(http, host, params.port ?? 0)
    http.on('error', (e) => params.onInternalError?.(e))
    let wss: WebSocket.Server
    try {
      wss = await listenWs(host, port + 1)
    } catch (e) {
      await new Promise((resolve) => http.close(resolve))
      // A free HTTP port whose neighbour is taken: with port 0 another pair will do.
      if (params.port || (e as { code?: string }).code !== 'EADDRINUSE' || attempt >= PORT_ATTEMPTS) throw e
      continue
    }
    wss.on('error', (e) => params.onInternalError?.(e))
    const subscriptions = ctx
      ? attachSubscriptions(wss, ctx.svm, params.onInternalError)
      : subscriptionsOnFirstClient(wss, contextOf, params.onInternalError)
    const urlHost = host.includes(':') ? `[${host}]` : host
    let stopped: Promise<void> | undefined
    return {
      rpcUrl: `http://${urlHost}:${port}`,
      wsUrl: `ws://${urlHost}:${port + 1}`,
      port,
      fetch: inProcessFetch(contextOf, params.onInternalError, () => stopped !== undefined),
      stop: () =>
        (stopped ??= (async () => {
          subscriptions.close()
          for (const client of wss.clients) client.terminate()
          await new Promise((resolve) => wss.close(resolve))
          http.closeAllConnections()
          await new Promise((resolve) => http.close(resolve))
        })()),
    }
  }
}

// ws 8 stops and restarts reading a client's socket; the @types/ws in the tree (v7) predates it.
const pausable = (ws: WebSocket) => ws as unknown as { pause(): void; resume(): void }

/**
 * Pubsub for a cluster built on first use: the first client asks for it. A client that connects
 * before it is up is paused (its socket is not read, so nothing it sends is lost) and handed over
 * then; if the cluster failed to start, it is disconnected.
 */
function subscriptionsOnFirstClient(
  wss: WebSocket.Server,
  contextOf: ContextOf,
  onInternalError: RpcContext['onInternalError'],
) {
  const early: Array<[WebSocket, IncomingMessage]> = []
  let attached: { close(): void } | undefined
  let closed = false
  const hold = (ws: WebSocket, req: IncomingMessage) => {
    pausable(ws).pause()
    early.push([ws, req])
    if (early.length > 1) return
    Promise.resolve(contextOf()).then(
      (ctx) => {
        wss.off('connection', hold)
        if (closed) return
        attached = attachSubscriptions(wss, ctx.svm, onInternalError)
        for (const [client, request] of early.splice(0)) {
          wss.emit('connection', client, request)
          pausable(client).resume()
        }
      },
      () => {
        for (const [client] of early.splice(0)) client.terminate()
      },
    )
  }
  wss.on('connection', hold)
  return {
    close: () => {
      closed = true
      attached?.close()
    },
  }
}
