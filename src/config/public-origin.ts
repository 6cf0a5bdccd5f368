import type { ResolvedConfig } from './load.js'
import type { ConfigProblem } from './problem.js'

/** The deployment's public origin, as sign-in and cookies use it. */
export type PublicOrigin = {
  /** scheme://host[:port], no trailing slash: what the EIP-4361 URI starts with. */
  origin: string
  /** host[:port]: the EIP-4361 domain. */
  host: string
  /** https: cookies are Secure and answers carry HSTS. */
  https: boolean
}

const FIX =
  'set PARX_PUBLIC_ORIGIN to the origin users open the dashboard at, e.g. ' +
  'https://pay.example.com (scheme and host, no path), or serve.publicOrigin in the config file'

/** Loopback names: an http origin there never crosses a network (a testnet tried on one machine). */
export const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' ||
  hostname.endsWith('.localhost') ||
  hostname === '[::1]' ||
  /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)

/**
 * `serve.publicOrigin` parsed: an http(s) origin with nothing after the host (a path, query,
 * fragment or credentials would make the EIP-4361 fields ambiguous), or why not.
 */
export function parsePublicOrigin(value: string): PublicOrigin | { problem: string } {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return { problem: `'${value}' is not a URL` }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: `'${value}' is not an http(s) URL` }
  if (url.username || url.password) return { problem: `'${url.origin}' must not carry credentials` }
  if (url.pathname !== '/' || url.search || url.hash || /[?#]$/.test(value))
    return { problem: `'${value}' has a path, query or fragment; give the origin alone (${url.origin})` }
  return { origin: url.origin, host: url.host, https: url.protocol === 'https:' }
}

/**
 * What is wrong with the public origin for this profile. Testnet and mainnet need one, over https
 * unless its host is loopback: without it the sign-in message would bind whatever Host header a
 * request carries, so a phishing site could have a wallet sign in for its own domain and replay
 * that signature here (docs/hosting.md "Hosting safely"). The local profile may leave it out.
 */
export function publicOriginProblems(
  config: Pick<Readonly<ResolvedConfig>, 'profile' | 'publicOrigin'>,
): ConfigProblem[] {
  const setting = 'serve.publicOrigin'
  if (!config.publicOrigin)
    return config.profile === 'local'
      ? []
      : [{ setting, problem: 'missing (sign-in messages are bound to it)', fix: FIX }]
  const parsed = parsePublicOrigin(config.publicOrigin)
  if ('problem' in parsed) return [{ setting, problem: parsed.problem, fix: FIX }]
  if (config.profile !== 'local' && !parsed.https && !isLoopbackHost(new URL(parsed.origin).hostname)) {
    return [
      {
        setting,
        problem: `'${parsed.origin}' is plain http: session cookies and sign-ins would cross the network in clear`,
        fix: 'serve the dashboard over TLS (a proxy in front) and set PARX_PUBLIC_ORIGIN to its https:// origin',
      },
    ]
  }
  return []
}

/** The public origin of a configuration that passed `publicOriginProblems`, or undefined when none is set. */
export function configuredOrigin(config: Pick<Readonly<ResolvedConfig>, 'publicOrigin'>): PublicOrigin | undefined {
  if (!config.publicOrigin) return undefined
  const parsed = parsePublicOrigin(config.publicOrigin)
  return 'problem' in parsed ? undefined : parsed
}
