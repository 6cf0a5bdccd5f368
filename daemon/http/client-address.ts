import type { Context } from 'hono'
import proxyaddr from 'proxy-addr'
import { remoteAddress } from './remote-address.js'

/** Who sent a request, as far as this process can tell. */
export type Client = {
  /**
   * The client's address: the socket's peer, or behind trusted proxies the nearest untrusted hop of X-Forwarded-For.
   */
  address: string | undefined
  /**
   * True when the socket's peer is a trusted proxy (`http.trustedProxies`): only then may its
   * forwarded headers (X-Forwarded-For, X-Forwarded-Proto, ...) be believed.
   */
  forwardedTrusted: boolean
}

export type TrustedProxies = {
  /** Works the request's client out once; later calls (and `clientOf`) read it back. */
  client(c: Context): Client
}

// Keyed by the request object: a route, the dashboard's cookie code or a limiter reads what the
// app worked out without being handed the trusted-proxy setting.
const seen = new WeakMap<Request, Client>()

/**
 * The trusted-proxy setting (docs/hosting.md "Hosting safely"), with proxy-addr's semantics: X-Forwarded-For
 * is read right to left while each hop is trusted, and the first untrusted one is the client. A
 * peer that is not trusted is the client itself, whatever headers it sends; with no proxies
 * configured nothing forwarded is ever believed.
 *
 * @example
 * const proxies = trustedProxies(['10.0.0.0/8'])
 * const { address, forwardedTrusted } = proxies.client(c)
 */
export function trustedProxies(list: readonly string[]): TrustedProxies {
  const trust = proxyaddr.compile([...list])
  return {
    client(c) {
      const known = seen.get(c.req.raw)
      if (known) return known
      const peer = remoteAddress(c)
      let client: Client = { address: peer, forwardedTrusted: false }
      if (peer !== undefined && list.length > 0 && trust(peer, 0)) {
        const forwarded = c.req.header('x-forwarded-for')
        // proxy-addr reads the peer and the header off a Node request; these two fields are all it uses.
        const req = {
          socket: { remoteAddress: peer },
          connection: { remoteAddress: peer },
          headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
        }
        client = { address: proxyaddr(req as never, trust), forwardedTrusted: true }
      }
      seen.set(c.req.raw, client)
      return client
    },
  }
}

/**
 * The request's client as the app worked it out; for a request that did not go through the app
 * (a test calling a handler), its socket's peer, and forwarded headers untrusted.
 */
export function clientOf(c: Context): Client {
  return seen.get(c.req.raw) ?? { address: remoteAddress(c), forwardedTrusted: false }
}

/** Whether this request's X-Forwarded-* headers come from a trusted proxy (Secure cookies, the login limiter...). */
export const forwardedHeadersTrusted = (c: Context): boolean => clientOf(c).forwardedTrusted

export const isLoopback = (ip: string | undefined): boolean =>
  ip !== undefined && (ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.'))
