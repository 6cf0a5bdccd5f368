import { readFileSync } from 'node:fs'

/**
 * The addresses a TCP port is listening on, from the kernel's socket tables (/proc/net/tcp and
 * tcp6, every process of this network namespace): what anyone on the network could connect to,
 * whatever the program says it asked for. IPv4 as dotted quads, IPv6 as 8 hex groups.
 */
export function listeningAddresses(port: number): string[] {
  const out: string[] = []
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/)
      const [addr, portHex] = local!.split(':')
      // 0A: TCP_LISTEN
      if (state !== '0A' || parseInt(portHex!, 16) !== port) continue
      out.push(addr!.length === 8 ? ipv4(addr!) : ipv6(addr!))
    }
  }
  return out
}

/** The kernel prints each 32-bit word in host order (little-endian here). */
const words = (hex: string) => hex.match(/.{8}/g)!.map((w) => w.match(/../g)!.reverse().join(''))
const ipv4 = (hex: string) =>
  words(hex)[0]!
    .match(/../g)!
    .map((b) => parseInt(b, 16))
    .join('.')
const ipv6 = (hex: string) => words(hex).join('').match(/.{4}/g)!.join(':')
