import { describe, expect, it } from 'vitest'
import { ruleBody } from './policy-flags.js'

describe('rule flags', () => {
  it('maps flags to lists (comma-separated, repeatable), none to null, --clear; nothing given: show only', async () => {
    expect(await ruleBody({})).toBeUndefined()
    expect(
      await ruleBody({
        allowHost: ['a.test', '*.b.test'],
        denyPayto: ['0x00000000000000000000000000000000000000aa'],
        denyNetwork: ['none'],
        allowToken: ['usdc'],
        clear: true,
      }),
    ).toEqual({
      allowHosts: ['a.test', '*.b.test'],
      denyPayTo: ['0x00000000000000000000000000000000000000AA'],
      denyNetworks: null,
      allowTokens: ['USDC'],
      clear: true,
    })
  })

  it('refuses a bad entry naming the flag and the entry, before anything is sent', async () => {
    await expect(ruleBody({ denyPayto: ['0x12'] })).rejects.toThrow(/--deny-payto '0x12' must be an EVM address/)
    await expect(ruleBody({ allowHost: ['https://a.test/'] })).rejects.toThrow(/--allow-host/)
    await expect(ruleBody({ denyToken: ['none', 'USDC'] })).rejects.toThrow(/give it alone/)
  })
})
