import type { ServerResponse } from 'node:http'
import type { Context, Next } from 'hono'
import { inRequest, REQUEST_ID_HEADER, requestIdFrom } from '../request-id.js'

/**
 * The app's first middleware: names the request (daemon/http/request-id.ts), runs everything it
 * causes inside that name, and returns it as `X-Request-Id` on every answer: routes, 404s, 413s,
 * auth failures and 429s alike (they are all answers of the app). Served over HTTP the header goes
 * on Node's response before anything is written, so even an answer a route writes itself carries it.
 */
export function requestIdMiddleware() {
  return async (c: Context, next: Next): Promise<void> => {
    const id = requestIdFrom(c.req.header(REQUEST_ID_HEADER))
    c.set('requestId', id)
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing
    if (outgoing && !outgoing.headersSent) outgoing.setHeader(REQUEST_ID_HEADER, id)
    await inRequest(id, next)
    if (!outgoing) c.header(REQUEST_ID_HEADER, id)
  }
}

/** The id the middleware gave this request (undefined in an app built without it). */
export const requestIdOf = (c: Context): string | undefined => c.get('requestId') as string | undefined
