import { describe, expect, it } from 'vitest'
import { loadConfig } from './load.js'

/** Platform wallet keys before a rotation (docs/hosting.md "Hosting safely"): a list, each 32 bytes of hex. */
describe('keys.platformWalletPrevious', () => {
  const load = (v: string) =>
    loadConfig({ env: { PARX_PLATFORM_WALLET_PREVIOUS_KEYS: v }, file: {}, flags: { dataDir: '/nonexistent' } })
  const a = `0x${'1'.repeat(64)}`
  const b = 'ab'.repeat(32)

  it('takes a comma-separated list from PARX_PLATFORM_WALLET_PREVIOUS_KEYS', () => {
    expect(load(`${a}, ${b}`).keys.platformWalletPrevious).toEqual([a, b])
  })

  it('refuses a key that is not 32 bytes of hex, naming the setting', () => {
    expect(() => load(`${a},0x1234`)).toThrow(/keys\.platformWalletPrevious.*32 bytes of hex/)
  })
})
