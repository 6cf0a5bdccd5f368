import { isIP } from 'node:net'
import type { Context } from 'hono'
import { isLoopbackHost, type PublicOrigin } from '../../src/config/public-origin.js'
import { BaseError } from '../../src/errors/index.js'
import { DASHBOARD_PATH } from '../../src/sdk/dashboard/index.js'
import { refuseCrossSite } from './cross-site.js'
import type { SiweOrigin } from './siwe.js'

/** Where the dashboard is, as sign-in and the session cookie see it. */
export type DashboardOrigin = {
  /** The EIP-4361 domain and URI a sign-in on this request is written for and checked against. */
  siwe(c: Context): SiweOrigin
  /** Whether the session cookie set on this request is Secure. */
  secure(c: Context): boolean
  /**
   * Throws ORIGIN_REJECTED when a browser sent this request from another site than the dashboard's
   * (daemon/dashboard/cross-site.ts): run on sign-in and on every change a session cookie authorizes.
   */
  refuseCrossSite(c: Context): void
}

/**
 * With a public origin configured (required on testnet and mainnet), sign-in binds it and nothing
 * the request says: a phishing page that had a wallet sign a message for its own domain cannot
 * log in by sending `Host: evil.example`, since the message must name the configured host. Cookies
 * are Secure exactly when that origin is https.
 *
 * Without one (the local profile), the page's Host is used as today, but only a loopback name or
 * an IP literal: a DNS name pointed at 127.0.0.1 (DNS rebinding) would otherwise make a local
 * daemon hand out sign-in messages for the attacker's domain. X-Forwarded-Proto counts only when
 * `forwardedTrusted` says the request came through a trusted proxy (`http.trustedProxies`); by
 * default never.
 */
export function dashboardOrigin(
  configured: PublicOrigin | undefined,
  forwardedTrusted: (c: Context) => boolean = () => false,
): DashboardOrigin {
  if (configured) {
    const fixed: SiweOrigin = { domain: configured.host, uri: `${configured.origin}${DASHBOARD_PATH}` }
    return {
      siwe: () => fixed,
      secure: () => configured.https,
      refuseCrossSite: (c) => refuseCrossSite(siteOf(c), configured.origin),
    }
  }
  const overTls = (c: Context) =>
    new URL(c.req.url).protocol === 'https:' || (forwardedTrusted(c) && c.req.header('x-forwarded-proto') === 'https')
  return {
    siwe(c) {
      const host = c.req.header('host') ?? new URL(c.req.url).host
      if (!addressedDirectly(host)) {
        throw new BaseError(
          'SIWE_REJECTED',
          `sign-in refused: this daemon has no public origin and signs in only ` +
            `at a loopback or IP address, not ${host}; open the dashboard at its ` +
            `address, or set PARX_PUBLIC_ORIGIN to the origin it is served at`,
        )
      }
      return { domain: host, uri: `${overTls(c) ? 'https' : 'http'}://${host}${DASHBOARD_PATH}` }
    },
    secure: overTls,
    // The daemon's own origin as the browser addressed it, under the same rule as sign-in: a DNS
    // name (a rebinding page's own) is no origin of ours, so any Origin is refused there.
    refuseCrossSite(c) {
      const host = c.req.header('host') ?? new URL(c.req.url).host
      refuseCrossSite(siteOf(c), addressedDirectly(host) ? `${overTls(c) ? 'https' : 'http'}://${host}` : undefined)
    },
  }
}

const siteOf = (c: Context) => ({ origin: c.req.header('origin'), fetchSite: c.req.header('sec-fetch-site') })

/** A Host of a loopback name or an IP literal (with its port): no DNS name another party controls. */
function addressedDirectly(host: string): boolean {
  let hostname: string
  try {
    hostname = new URL(`http://${host}`).hostname
  } catch {
    return false
  }
  return isLoopbackHost(hostname) || isIP(hostname.replace(/^\[|\]$/g, '')) !== 0
}
