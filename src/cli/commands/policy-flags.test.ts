import { describe, expect, it } from 'vitest'
import { ruleBody } from './policy-flags.js'

describe('rule flags', () => {
  it('maps flags to lists (comma-separated, repeatable), none to null, --clear; nothing given: show only', () => {
    expect(ruleBody({})).toBeUndefined()
    expect(ruleBody({ allowHost: ['a.test', '*.b.test'], denyPayto: ['0x00000000000000000000000000000000000000aa'], denyNetwork: ['none'], allowToken: ['usdc'], clear: true })).toEqual({
      allowHosts: ['a.test', '*.b.test'], denyPayTo: ['0x00000000000000000000000000000000000000AA'], denyNetworks: null, allowTokens: ['USDC'], clear: true,
    })
  })

  it('refuses a bad entry naming the flag and the entry, before anything is sent', () => {
    expect(() => ruleBody({ denyPayto: ['0x12'] })).toThrow(/--deny-payto '0x12' must be an EVM address/)
    expect(() => ruleBody({ allowHost: ['https://a.test/'] })).toThrow(/--allow-host/)
    expect(() => ruleBody({ denyToken: ['none', 'USDC'] })).toThrow(/give it alone/)
  })
})
