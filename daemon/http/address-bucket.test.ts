import { describe, expect, it } from 'vitest'
import { addressBucket } from './address-bucket.js'

describe('addressBucket', () => {
  it('keys IPv6 by its /64, however it is spelled', () => {
    const one = [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:5',
      '2001:db8:1:2::1.2.3.4',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::9'),
    ]
    expect(new Set(one.map(addressBucket))).toEqual(new Set(['2001:db8:1:2::/64']))
    expect(addressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
    expect(addressBucket('::1')).toBe('0:0:0:0::/64')
    expect(addressBucket('2001:db8::')).toBe('2001:db8:0:0::/64')
  })

  it('keys IPv4, mapped or not, by the address', () => {
    expect(addressBucket('192.0.2.1')).toBe('192.0.2.1')
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(addressBucket('192.0.2.2')).toBe('192.0.2.2')
    expect(addressBucket(undefined)).toBe('unknown')
  })
})
