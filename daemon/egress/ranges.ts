import ipaddr from 'ipaddr.js'

/** Where global unicast IPv6 lives (RFC 4291 §2.4); everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

/**
 * The special-purpose range an IP literal falls in, as ipaddr.js names it ('loopback', 'private',
 * 'linkLocal', 'carrierGradeNat', 'uniqueLocal', 'rfc6052'...), 'unicast' for an ordinary public
 * address, or undefined when `ip` is not an address. An IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries, and IPv6 outside 2000::/3 (the
 * IPv4-compatible `::7f00:1`, unassigned space) is 'reserved': ipaddr.js would call it unicast.
 */
export function addressRange(ip: string): string | undefined {
  if (!ipaddr.isValid(ip)) return undefined
  let addr = ipaddr.parse(ip)
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address()
  const range = addr.range()
  if (range === 'unicast' && addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return 'reserved'
  return range
}

/**
 * True only for a public unicast address: what a hosted daemon may connect to for its users. The
 * ranges are the IANA special-purpose registries as ipaddr.js keeps them (0/8, 10/8, 100.64/10,
 * 127/8, 169.254/16, 172.16/12, 192.168/16, 224/4, 240/4, fc00::/7, fe80::/10, 64:ff9b::/96...).
 */
export const isPublicUnicast = (ip: string): boolean => addressRange(ip) === 'unicast'
