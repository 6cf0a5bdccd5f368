import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { newRequestId } from './request-id.js'

/**
 * Writes the body of an error answer the server's own way: `{ error, code, requestId }`, or a
 * JSON-RPC error (which has no request id: `requestId` is then undefined).
 */
export type ErrorBody = (status: number, message: string, requestId?: string) => string

/** What Node's HTTP parser refuses, as a status and a message a client can act on. */
export function parserFailure(err: { code?: string }): { status: number; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, message: 'the request line or headers are larger than 16 KiB' }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'the chunk extensions are too large' }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'the request was not received in time' }
    case 'HPE_INVALID_METHOD':
      return { status: 400, message: 'unknown HTTP method' }
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, message: 'malformed request body framing (chunked encoding or Content-Length)' }
    default:
      return { status: 400, message: 'malformed HTTP request' }
  }
}

const reason: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
}

/**
 * Answers in JSON what Node's HTTP layer would otherwise answer itself with an empty body: requests
 * its parser refuses (`clientError`) and `Expect` headers other than 100-continue (`checkExpectation`).
 */
export function answerParserErrors(server: Server, body: ErrorBody, opts: { requestIds?: boolean } = {}): void {
  // These never reach the app, so they get their id here: every answer of the API names one.
  const withId = (): { id?: string; header: string } => {
    if (!opts.requestIds) return { header: '' }
    const id = newRequestId()
    return { id, header: `X-Request-Id: ${id}\r\n` }
  }
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Mirrors Node's own rule: answer only when nothing was sent on this socket for the request.
    const inFlight = (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy()
    const { status, message } = parserFailure(err)
    const { id, header } = withId()
    const text = body(status, message, id)
    socket.end(
      `HTTP/1.1 ${status} ${reason[status] ?? 'Bad Request'}\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${header}Connection: close\r\n\r\n${text}`,
    )
  })
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const { id } = withId()
    const text = body(417, 'only Expect: 100-continue is supported', id)
    res.writeHead(417, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      connection: 'close',
      ...(id ? { 'x-request-id': id } : {}),
    })
    res.end(text)
  })
}
