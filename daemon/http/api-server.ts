import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { getRequestListener, type Http2Bindings, type HttpBindings, RequestError } from '@hono/node-server'
import type { ErrorCode } from '../../src/errors/index.js'
import { DRAIN_BYTES, DRAIN_MS } from './body.js'
import { answerParserErrors } from './node-errors.js'
import { newRequestId } from './request-id.js'

const codeOf: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  417: 'EXPECTATION_FAILED',
  431: 'HEADERS_TOO_LARGE',
  500: 'INTERNAL',
}

export const apiErrorBody = (status: number, error: string, requestId?: string) =>
  JSON.stringify({ error, code: codeOf[status] ?? 'BAD_REQUEST', ...(requestId ? { requestId } : {}) })

/** An answer for a request the app never saw, with an id of its own (docs/operations.md "Request ids"). */
const json = (status: number, error: string) => {
  const id = newRequestId()
  return new Response(apiErrorBody(status, error, id), {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': id },
  })
}

/**
 * The app's fetch; `env` carries Node's request and response (`c.env.incoming`/`outgoing` in routes that write the
 * socket themselves, and for the client's address).
 */
export type ApiFetch = (req: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>

/**
 * The API's HTTP server (not yet listening). The app answers everything it is handed; this answers,
 * also as `{ error, code }`, what never reaches it: requests Node's parser or the adapter cannot
 * turn into a Request (an unknown method, broken chunking, a malformed Host, headers over the limit).
 */
export function createApiServer(fetch: ApiFetch, opts: ApiServerOptions = {}): Server {
  const listener = getRequestListener(fetch, {
    errorHandler: (e) =>
      e instanceof RequestError
        ? json(400, `malformed request: ${e.message}`)
        : json(500, 'internal error; the daemon log has the details'),
  })
  const server = createServer({ ServerResponse: opts.hsts ? HstsResponse : ClosingResponse }, listener)
  answerParserErrors(server, apiErrorBody, { requestIds: true })
  return server
}

export type ApiServerOptions = {
  /**
   * Every answer carries Strict-Transport-Security: the deployment's public origin is https (docs/hosting.md "Hosting
   * safely").
   */
  hsts?: boolean
}

/**
 * Closes the connection after a 413, and after any answer that starts while its request's body
 * is still arriving (a refusal before the body was read, a body over its cap): the unread rest
 * would otherwise be parsed as the next request, or the socket cut under a keep-alive client's
 * next request. `Connection: close` tells the client not to reuse the socket (docs/hosting.md "Hosting
 * safely": body caps). The close lingers while the body still arrives (`lingerOnClose`).
 */
class ClosingResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    const arriving = bodyStillArriving(this.req)
    if (statusCode === 413 || arriving) this.setHeader('connection', 'close')
    if (arriving && this.req?.socket) lingerOnClose(this.req.socket)
    return (super.writeHead as (s: number, ...r: unknown[]) => this)(statusCode, ...rest)
  }
}

/**
 * A lingering close (as Apache and nginx do): once the answer is sent, Node would close the socket
 * with the client's body still in its receive buffer, and the kernel answers unread data with a
 * reset that can destroy the answer before the client reads it (it sees EPIPE or ECONNRESET
 * instead of the 413 or 400). So the answer is followed by our FIN only, the rest of the body is
 * read and dropped, and the socket is destroyed when the client closes its side, after
 * DRAIN_BYTES more bytes, or after DRAIN_MS, whichever comes first: a client that never stops
 * writing costs a bounded time and bandwidth.
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    let dropped = 0
    const close = () => this.destroy()
    const timer = setTimeout(close, DRAIN_MS)
    timer.unref()
    this.once('close', () => clearTimeout(timer))
    this.once('end', close)
    this.on('data', (chunk: Buffer) => {
      dropped += chunk.byteLength
      if (dropped > DRAIN_BYTES) close()
    })
    // HTTP sockets are half-open capable: end() sends the FIN after the answer and still reads.
    if (this.writable) this.end()
    this.resume()
  }
}

// A year, this host only: subdomains may be other services the operator does not serve over https.
const HSTS = 'max-age=31536000'

class HstsResponse<R extends IncomingMessage = IncomingMessage> extends ClosingResponse<R> {
  override writeHead(statusCode: number, ...rest: unknown[]): this {
    this.setHeader('strict-transport-security', HSTS)
    return super.writeHead(statusCode, ...rest)
  }
}

const bodyStillArriving = (req: IncomingMessage | undefined) =>
  req !== undefined &&
  !req.complete &&
  (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0)
