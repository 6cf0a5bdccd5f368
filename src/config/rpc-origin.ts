/**
 * An RPC URL as the ready line, `parx serve --output json` and `parx.log` show it: its origin
 * alone (scheme, host and port). A provider's API key sits in the path, the query or the userinfo
 * (`https://base-sepolia.g.alchemy.com/v2/<key>`, `https://user:<key>@rpc.example`), and those
 * outputs land in terminals, CI logs and log shippers. The embedded chains' URLs are origins
 * already, so they show whole (and stay usable).
 *
 * @example
 * rpcOrigin('https://user:pw@base-sepolia.g.alchemy.com/v2/KEY?x=1') // 'https://base-sepolia.g.alchemy.com'
 */
export function rpcOrigin(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}`
  } catch {
    return '[not a URL]'
  }
}

/** Every network's RPC URL as `rpcOrigin` shows it. */
export const rpcOrigins = (rpc: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(rpc).map(([network, url]) => [network, rpcOrigin(url)]))
