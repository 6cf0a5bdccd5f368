import { createServer } from 'node:net'
import { BaseError } from '../../src/errors/index.js'

/**
 * Fails fast when `port` is taken, before a child is started on it: a listener that never answers
 * would otherwise make the readiness probe wait, and another HTTP service would be mistaken for
 * our chain. `what` names the port in the message (the API, or which chain beside it).
 */
export function assertPortFree(host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (e: NodeJS.ErrnoException) => reject(portError(e, host, port, what)))
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
  })
}

export function portError(e: NodeJS.ErrnoException, host: string, port: number, what: string): unknown {
  if (e.code === 'EADDRINUSE') {
    return new BaseError(
      'PORT_IN_USE',
      `port ${port} on ${host} (${what}) is in use; stop what holds it, or ` +
        `pass another --port (the chains take the 4 ports after it) or --port 0`,
      { cause: e },
    )
  }
  if (e.code === 'EACCES')
    return new BaseError(
      'PORT_IN_USE',
      `port ${port} on ${host} (${what}) needs privileges; pass a --port above 1023 or --port 0`,
      { cause: e },
    )
  if (e.code === 'EADDRNOTAVAIL')
    return new BaseError(
      'PORT_IN_USE',
      `--host ${host} is not an address of this machine; pass one it has (default 127.0.0.1)`,
      { cause: e },
    )
  return e
}
