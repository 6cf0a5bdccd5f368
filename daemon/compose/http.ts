import type { Server } from 'node:http'
import type { ServerType } from '@hono/node-server'
import type { Logger } from 'pino'
import type { ResolvedConfig } from '../../src/config/load.js'
import { configuredOrigin, type PublicOrigin } from '../../src/config/public-origin.js'
import type { DaemonUrls } from '../discovery/types.js'
import { type ApiFetch, type ApiServerOptions, createApiServer } from '../http/api-server.js'
import { type Drainable, drainable } from '../http/drain.js'
import type { Lifetime } from './lifetime.js'

export type ListeningApi = { urls: DaemonUrls; http: Drainable; publicOrigin: PublicOrigin | undefined }

/**
 * The API's listener, started before the app exists: the URLs are known once the port is, and the
 * services built after need them. `fetch` answers 503 until the app is handed in.
 */
export async function listenApi(p: {
  config: Readonly<ResolvedConfig>
  log: Logger
  life: Lifetime
  rpc: Record<string, string>
  fetch: ApiFetch
}): Promise<ListeningApi> {
  const { config, life, log } = p
  // HSTS on every answer when the public origin is https (docs/hosting.md "Hosting safely").
  const publicOrigin = configuredOrigin(config)
  const server = await listen(p.fetch, config.host, config.port, { hsts: publicOrigin?.https })
  life.onStop(() => closeServer(server.server))
  // A stop answers what is in flight (within http.drainSeconds) before anything it needs is stopped.
  const http = drainable(server.server as Server)
  life.atStopFirst(async () => {
    const d = await http.drain(config.http.drainSeconds * 1000)
    if (d.inFlightAtStart || d.cut)
      log.info(
        d,
        d.cut
          ? 'stopping: requests still in flight after http.drainSeconds were cut'
          : 'stopping: requests in flight were answered',
      )
  })
  const api = httpOrigin(config.host, server.port)
  return {
    urls: { api, facilitator: `${api}/facilitator`, platform: api, dashboard: `${api}/dashboard`, rpc: p.rpc },
    http,
    publicOrigin,
  }
}

function listen(
  fetch: ApiFetch,
  hostname: string,
  port: number,
  opts: ApiServerOptions,
): Promise<{ server: ServerType; port: number }> {
  return new Promise((resolve, reject) => {
    const server = createApiServer(fetch, opts)
    server.once('error', reject)
    server.listen(port, hostname, () => resolve({ server, port: (server.address() as { port: number }).port }))
  })
}

/** `http://host:port`, an IPv6 host in brackets. */
export const httpOrigin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`

export function closeServer(server: ServerType): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve())
    // Keep-alive sockets would hold close() open; they carry no work once we are stopping.
    ;(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.()
  })
}
