import { describe, expect, it } from 'vitest'
import { UsageError } from '../errors/usage.js'
import { amount, evmAddress, solanaAddress } from './validate.js'

const usage = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return e instanceof UsageError && e.code === 'USAGE' ? e.message : `not a usage error: ${e}`
  }
  return 'accepted'
}

describe('flag values', () => {
  it('addresses', () => {
    expect(evmAddress('0x00000000000000000000000000000000000000cc', '--to')).toBe(
      '0x00000000000000000000000000000000000000cc',
    )
    expect(usage(() => evmAddress('0x12', '--to'))).toMatch(/--to '0x12' is not an EVM address/)
    expect(usage(() => evmAddress('nobody', '--owner'))).toMatch(/--owner/)
    expect(solanaAddress('11111111111111111111111111111111', '--to')).toBe('11111111111111111111111111111111')
    expect(usage(() => solanaAddress('0OIl', '--to'))).toMatch(/not a Solana public key/)
  })

  it('amounts', () => {
    for (const ok of ['1', '12.5', '0.000001', '.5', '10.']) expect(amount(ok, '--amount')).toBe(ok)
    for (const bad of ['0', '0.0', '-1', '1e3', 'abc', '', '1.2.3'])
      expect(usage(() => amount(bad, '--amount'))).toMatch(/--amount '.*' is not a positive amount/)
  })
})
