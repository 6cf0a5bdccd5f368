import { describe, expect, it } from 'vitest'
import { addressRange, isPublicUnicast } from './ranges.js'

// Strings only: nothing here opens a socket (docs/hosting.md "Hosting safely").
describe('egress address classification', () => {
  it('refuses every special-purpose IPv4 range', () => {
    const refused: Record<string, string> = {
      '127.0.0.1': 'loopback',
      '127.255.255.254': 'loopback',
      '0.0.0.0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '10.0.0.1': 'private',
      '10.255.255.255': 'private',
      '172.16.0.1': 'private',
      '172.31.255.1': 'private',
      '192.168.1.1': 'private',
      '100.64.0.1': 'carrierGradeNat',
      '100.127.255.254': 'carrierGradeNat',
      '169.254.169.254': 'linkLocal',
      '224.0.0.1': 'multicast',
      '239.255.255.250': 'multicast',
      '255.255.255.255': 'broadcast',
      '240.0.0.1': 'reserved',
      '192.0.2.1': 'reserved',
      '198.18.0.1': 'reserved',
      '198.51.100.7': 'reserved',
      '203.0.113.9': 'reserved',
      '192.0.0.8': 'reserved',
    }
    for (const [ip, range] of Object.entries(refused)) {
      expect(addressRange(ip), ip).toBe(range)
      expect(isPublicUnicast(ip), ip).toBe(false)
    }
  })

  it('refuses every special-purpose IPv6 range, and judges IPv4-mapped addresses as the IPv4 they carry', () => {
    for (const ip of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b:1::1',
      '2001:db8::1',
      '2002:7f00:1::1',
      '2001::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:10.0.0.1',
      '::ffff:0.0.0.0',
      '::7f00:1',
      '::127.0.0.1',
      '100::1',
      'fec0::1',
    ])
      expect(isPublicUnicast(ip), ip).toBe(false)
    expect(addressRange('::ffff:127.0.0.1')).toBe('loopback')
    expect(addressRange('::ffff:169.254.169.254')).toBe('linkLocal')
    expect(addressRange('64:ff9b::a9fe:a9fe')).toBe('rfc6052')
    expect(addressRange('fc00::1')).toBe('uniqueLocal')
  })

  it('admits public unicast addresses, v4, v6 and IPv4-mapped', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '100.63.255.255',
      '100.128.0.1',
      '172.15.255.255',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:82b::200e',
      '::ffff:8.8.8.8',
    ]) {
      expect(isPublicUnicast(ip), ip).toBe(true)
    }
  })

  it('a name or garbage is not an address', () => {
    for (const s of ['localhost', 'example.com', '', '2130706433x', '1.2.3.4.5'])
      expect(addressRange(s), s).toBeUndefined()
  })
})
