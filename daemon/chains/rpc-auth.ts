import { Connection, type ConnectionConfig } from '@solana/web3.js'
import { type HttpTransport, type HttpTransportConfig, http } from 'viem'

/** An RPC URL as a client sends to it: the URL without userinfo, and the headers that carry it. */
export type RpcEndpoint = { url: string; headers: Record<string, string> }

/**
 * Some providers issue RPC URLs with credentials in their userinfo (`https://user:pass@host/...`).
 * fetch refuses such a URL outright ("Request cannot be constructed from a URL that includes
 * credentials") and undici pools ignore it, so every client of an RPC URL sends it as HTTP Basic
 * auth instead (RFC 7617; the userinfo is already percent-encoded, which the header wants decoded).
 *
 * @example
 * rpcEndpoint('https://me:s3cret@rpc.example/v1') // { url: 'https://rpc.example/v1', headers: { authorization: 'Basic
 * bWU6czNjcmV0' } }
 */
export function rpcEndpoint(url: string): RpcEndpoint {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return { url, headers: {} }
  }
  if (!u.username && !u.password) return { url, headers: {} }
  const user = decodeURIComponent(u.username)
  const pass = decodeURIComponent(u.password)
  u.username = ''
  u.password = ''
  return { url: u.toString(), headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` } }
}

/** viem's http transport for an RPC URL, its userinfo sent as Basic auth (see rpcEndpoint). */
export function rpcHttp(url: string, config: HttpTransportConfig = {}): HttpTransport {
  const e = rpcEndpoint(url)
  if (!e.headers.authorization) return http(url, config)
  const headers = { ...(config.fetchOptions?.headers as Record<string, string> | undefined), ...e.headers }
  return http(e.url, { ...config, fetchOptions: { ...config.fetchOptions, headers } })
}

/**
 * A Solana Connection to an RPC URL, its userinfo sent as Basic auth on every HTTP request. The
 * websocket endpoint keeps its userinfo: the `ws` client sends it as Basic auth itself.
 */
export function solanaConnection(url: string, config: ConnectionConfig = {}): Connection {
  const e = rpcEndpoint(url)
  if (!e.headers.authorization) return new Connection(url, config)
  return new Connection(e.url, {
    ...config,
    httpHeaders: { ...config.httpHeaders, ...e.headers },
    wsEndpoint: config.wsEndpoint ?? url.replace(/^http/, 'ws'),
  })
}
