/**
 * What of an upstream's words may reach a client. Hosted RPC URLs carry the provider's API key (in
 * the path, the query or the userinfo), and viem's errors quote the URL and the request body
 * (`URL: ...`, `Request body: ...`); any message built from a caught error may hold them. Answers
 * carry the redacted text; the daemon log keeps the whole error.
 */

/** Fragments of the configured RPC URLs that may be credentials: replaced wherever they appear. */
const secrets = new Set<string>()

/** Shorter fragments (`v2`, `rpc`) are path words, not keys; replacing them would garble messages. */
const MIN_SECRET_LENGTH = 6

/**
 * Registers the parts of an RPC URL that may be a credential (userinfo, path segments, query
 * values), so they are removed from any text `redactText` sees, URL or not: a provider's own
 * error may quote its key on its own ("invalid api key ...").
 */
export function registerSecretUrl(url: string): void {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s)
    } catch {
      return s
    }
  }
  const parts = [
    u.username,
    u.password,
    decode(u.username),
    decode(u.password),
    ...u.pathname.split('/').flatMap((s) => [s, decode(s)]),
    ...[...u.searchParams.values()],
    u.hash.slice(1),
  ]
  for (const p of parts) if (p.length >= MIN_SECRET_LENGTH) secrets.add(p)
}

/**
 * viem's lines that quote the request: the URL, the JSON-RPC body, the call's arguments, its docs link, its version.
 */
const QUOTING_LINE = /^\s*(URL|Request body|Docs|Version):.*$/gim
/** A URL in prose: it does not end on the punctuation after it. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]*[^\s"'<>`.,;:)\]}]/gi

/** A URL without its userinfo (`user:pass@`), the one part of any URL that is always a credential. */
function withoutUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/i, '$1')
}

/**
 * The text without viem's `URL:` / `Request body:` / `Docs:` / `Version:` lines, without the
 * userinfo of any URL, and with every registered RPC credential replaced. Other URLs (a seller's,
 * which its caller gave) and revert reasons and node messages stay: they are what the caller needs.
 *
 * @example
 * redactText('HTTP request failed.\n\nURL: https://x.example/v2/KEY\nRequest body: {...}\n\nDetails: fetch failed')
 * // 'HTTP request failed.\n\nDetails: fetch failed'
 */
export function redactText(text: string): string {
  const cut = text.replace(QUOTING_LINE, '')
  // Blank lines left where lines were cut are closed up; an untouched text stays exactly as it was.
  let out = (cut === text ? text : cut.replace(/\n{3,}/g, '\n\n').trim()).replace(URL_IN_TEXT, withoutUserinfo)
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]')
  return out
}

/**
 * An RPC URL as a public answer may show it: unchanged when nothing in it can hold a credential
 * (no userinfo, query or fragment, and no path beyond `/`), else undefined: a provider URL's
 * path is usually its key, and a URL cut down to its origin would not work anyway.
 */
export function publicRpcUrl(url: string): string | undefined {
  try {
    const u = new URL(url)
    if (u.username || u.password || u.search || u.hash || (u.pathname !== '/' && u.pathname !== '')) return undefined
    return url
  } catch {
    return undefined
  }
}
