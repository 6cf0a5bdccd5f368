import { describe, expect, it } from 'vitest'
import { parseClaims, parseConfig, parseVoucher, uint } from './parse.js'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const config = {
  payer: addr(1),
  payerAuthorizer: addr(1),
  receiver: addr(2),
  receiverAuthorizer: addr(3),
  token: addr(4),
  withdrawDelay: 900,
  salt: `0x${'00'.repeat(31)}01`,
}

describe('batch-settlement payload parsing', () => {
  it('reads amounts as decimal strings and salts as 0x hex (the official client sends both), refusing the rest', () => {
    expect(uint('100000')).toBe(100000n)
    expect(uint(`0x${'ff'.repeat(32)}`)).toBe(2n ** 256n - 1n)
    expect(uint(900)).toBe(900n)
    for (const bad of ['-1', '1.5', '', '0x', `0x${'00'.repeat(33)}`, '1'.repeat(79), -1, 1.5, null])
      expect(uint(bad), String(bad)).toBeUndefined()
  })

  it('reads a channel config, and refuses one with a field missing or a withdraw delay beyond uint40', () => {
    expect(parseConfig(config)).toMatchObject({ withdrawDelay: 900, salt: config.salt })
    expect(parseConfig({ ...config, receiverAuthorizer: undefined })).toBeUndefined()
    expect(parseConfig({ ...config, withdrawDelay: String(2n ** 40n) })).toBeUndefined()
    expect(parseConfig({ ...config, salt: '0x01' })).toBeUndefined()
  })

  it('reads vouchers and claim rows', () => {
    const voucher = { channelId: `0x${'ab'.repeat(32)}`, maxClaimableAmount: '5000', signature: '0x1234' }
    expect(parseVoucher(voucher)).toEqual({
      channelId: voucher.channelId,
      maxClaimableAmount: 5000n,
      signature: '0x1234',
    })
    expect(parseVoucher({ ...voucher, signature: '0x' })).toBeUndefined()
    const row = { voucher: { channel: config, maxClaimableAmount: '5000' }, signature: '0x1234', totalClaimed: '5000' }
    expect(parseClaims([row])?.[0]).toMatchObject({ totalClaimed: 5000n, voucher: { maxClaimableAmount: 5000n } })
    expect(parseClaims([])).toBeUndefined()
    expect(parseClaims([{ ...row, totalClaimed: 'x' }])).toBeUndefined()
  })
})
