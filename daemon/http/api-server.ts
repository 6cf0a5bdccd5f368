import { getRequestListener, RequestError, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import { createServer, type Server } from 'node:http'
import type { ErrorCode } from '../../src/errors/index.js'
import { answerParserErrors } from './node-errors.js'

const codeOf: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST', 408: 'REQUEST_TIMEOUT', 413: 'PAYLOAD_TOO_LARGE', 417: 'EXPECTATION_FAILED', 431: 'HEADERS_TOO_LARGE', 500: 'INTERNAL',
}

export const apiErrorBody = (status: number, error: string) => JSON.stringify({ error, code: codeOf[status] ?? 'BAD_REQUEST' })

const json = (status: number, error: string) => new Response(apiErrorBody(status, error), { status, headers: { 'content-type': 'application/json' } })

/** The app's fetch; `env` carries Node's request and response (`c.env.incoming`/`outgoing` in routes that write the socket themselves, and for the client's address). */
export type ApiFetch = (req: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>

/**
 * The API's HTTP server (not yet listening). The app answers everything it is handed; this answers,
 * also as `{ error, code }`, what never reaches it: requests Node's parser or the adapter cannot
 * turn into a Request (an unknown method, broken chunking, a malformed Host, headers over the limit).
 */
export function createApiServer(fetch: ApiFetch): Server {
  const listener = getRequestListener(fetch, {
    errorHandler: (e) => (e instanceof RequestError ? json(400, `malformed request: ${e.message}`) : json(500, 'internal error; the daemon log has the details')),
  })
  const server = createServer(listener)
  answerParserErrors(server, apiErrorBody)
  return server
}
