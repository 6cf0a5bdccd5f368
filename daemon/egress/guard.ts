import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { Agent } from 'undici'
import { BaseError } from '../../src/errors/index.js'
import { addressRange } from './ranges.js'

/** Resolves a name to every address it has (dns.lookup's `all`); tests give their own. */
export type Lookup = (hostname: string) => Promise<Array<{ address: string }>>

export type EgressParameters = {
  /**
   * Only public unicast addresses (testnet, mainnet); off, anything is reached (the local profile, where sellers live
   * on 127.0.0.1).
   */
  strict: boolean
  /** Exact `host:port` entries admitted whatever they resolve to (config egress.allow). */
  allow?: readonly string[]
  lookup?: Lookup
}

/** Outbound requests made for users: pay, paid endpoints' upstreams, settlement webhooks. */
export type Egress = {
  strict: boolean
  /**
   * EGRESS_REFUSED unless `url` may be fetched: for a URL given at creation (endpoint upstreams,
   * webhooks). A name that does not resolve now passes: the connection is checked again anyway.
   */
  check(url: string, field?: string): Promise<void>
  /**
   * `fetch` through the one guarded dispatcher; a refused connection rejects with the EGRESS_REFUSED error as its
   * cause.
   */
  fetch(url: string, init: RequestInit): Promise<Response>
  /** Ends every connection, aborting requests still in flight. */
  close(): Promise<void>
}

const defaultLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

/**
 * The one dispatcher every user-directed request goes through. Its connector resolves the name
 * itself, refuses unless every address is public unicast (ranges.ts), and connects to the address
 * it checked, so a name that answers a public address to the check and 127.0.0.1 to the connect
 * (DNS rebinding) cannot get in; TLS still verifies the certificate against the name. Refusing
 * happens before any socket is opened, so a closed and an open internal port look the same.
 * `host:port` entries of the allow-list connect as usual, and only on that port.
 */
export function egressGuard(p: EgressParameters): Egress {
  const allow = new Set((p.allow ?? []).map(normalizeEntry))
  const lookup = p.lookup ?? defaultLookup

  /** The address to connect to instead of the name, undefined to connect as usual; throws EGRESS_REFUSED. */
  async function admit(hostname: string, port: string, protocol: string): Promise<string | undefined> {
    const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname
    const effectivePort = port || (protocol === 'https:' ? '443' : '80')
    const where = `${isIP(bare) === 6 ? `[${bare}]` : bare}:${effectivePort}`
    if (!p.strict || allow.has(where)) return undefined
    const literal = isIP(bare) !== 0
    // RFC 6761 §6.3: localhost and its sub-domains are this machine whatever DNS says (or fails to say).
    const local = /(^|\.)localhost\.*$/i.test(bare)
    const addresses = literal ? [bare] : local ? [] : (await lookup(bare)).map((a) => a.address)
    const inside = addresses.find((a) => addressRange(a) !== 'unicast')
    if (addresses.length === 0 || inside !== undefined) {
      const what = literal
        ? `${bare} is not a public address (${addressRange(bare) ?? 'unknown'})`
        : `${bare} does not resolve to a public address`
      throw new BaseError(
        'EGRESS_REFUSED',
        `${what}: this platform does not fetch inside its own network for users; nothing was sent or ` +
          `paid. An operator admits exactly one host and port with egress.allow (PARX_EGRESS_ALLOW=${where})`,
      )
    }
    return addresses[0]
  }

  // undici loads at the first user-directed request, not at the daemon's start (~0.1 s of its CPU).
  let undici: Promise<{ dispatcher: Agent; fetch: typeof import('undici').fetch }> | undefined
  const guarded = () =>
    (undici ??= import('undici').then(({ Agent, buildConnector, fetch }) => {
      const plain = buildConnector({})
      const dispatcher: Agent = new Agent({
        connect(opts, callback) {
          admit(opts.hostname, opts.port, opts.protocol).then(
            (address) => plain(address ? { ...opts, hostname: address } : opts, callback),
            (err: Error) => callback(err, null),
          )
        },
      })
      return { dispatcher, fetch }
    }))

  return {
    strict: p.strict,
    async check(url, field) {
      const u = new URL(url)
      const prefix = field ? `invalid field '${field}': ` : ''
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new BaseError('EGRESS_REFUSED', `${prefix}${u.protocol} URLs are not fetched; use http:// or https://`)
      try {
        await admit(u.hostname, u.port, u.protocol)
      } catch (e) {
        if (e instanceof BaseError) throw new BaseError(e.code, prefix + e.message)
        // Not resolvable now (NXDOMAIN, DNS down): not refused here; the connection is checked when it is made.
      }
    },
    fetch: async (url, init) => {
      const { dispatcher, fetch } = await guarded()
      return fetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>
    },
    // At stop: a request still hanging on a seller must not hold the daemon's shutdown.
    close: async () => {
      if (undici !== undefined) await (await undici).dispatcher.destroy()
    },
  }
}

/** The EGRESS_REFUSED error behind a failed fetch (undici wraps connector errors in `TypeError: fetch failed`). */
export function egressRefusal(err: unknown): BaseError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BaseError && e.code === 'EGRESS_REFUSED') return e
  }
  return undefined
}

/** An allow-list entry as URLs spell the host: lower case, IPv4 canonical, IPv6 compressed in brackets. */
function normalizeEntry(entry: string): string {
  const at = entry.lastIndexOf(':')
  const host = new URL(`http://${entry.slice(0, at)}`).hostname
  return `${host}:${Number(entry.slice(at + 1))}`
}
