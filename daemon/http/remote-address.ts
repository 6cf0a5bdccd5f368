import { getConnInfo } from '@hono/node-server/conninfo'

/** The client's address; undefined for in-process requests (`app.request`), which have no socket. */
export function remoteAddress(c: Parameters<typeof getConnInfo>[0]): string | undefined {
  try {
    return getConnInfo(c).remote.address
  } catch {
    return undefined
  }
}
