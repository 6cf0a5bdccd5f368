import { isIPv4, isIPv6 } from 'node:net'

/**
 * The rate-limit bucket of an anonymous client's address: an IPv4 address as it is, an IPv6 one
 * by its /64 prefix. A single IPv6 subscriber or host is routinely given a whole /64 (RFC 6177),
 * so keying by the full address would hand one client 2^64 fresh buckets; an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, a dual-stack listener's view of an IPv4 client) is its IPv4 address.
 *
 * @example
 * addressBucket('2001:db8:1:2:a:b:c:d') // '2001:db8:1:2::/64'
 * addressBucket('::ffff:192.0.2.1') // '192.0.2.1'
 */
export function addressBucket(address: string | undefined): string {
  if (!address) return 'unknown'
  const a = address.split('%')[0]!.toLowerCase()
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!
  if (!isIPv6(a)) return a
  const groups = (s: string) => (s ? s.split(':') : [])
  const [head, tail] = a.split('::') as [string, string | undefined]
  const h = groups(head)
  const t = tail === undefined ? [] : groups(tail)
  // An embedded IPv4 tail is two groups, always in the low 64 bits.
  const width = (g: string[]) => g.reduce((n, x) => n + (x.includes('.') ? 2 : 1), 0)
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - width(h) - width(t)).fill('0'), ...t]
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`
}
