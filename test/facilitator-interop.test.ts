import { HTTPFacilitatorClient } from '@x402/core/server'
import { SettleResponseSchema, VerifyResponseSchema } from 'mppx/x402'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, erc2612Body, evmPayer, post, randomAddress, requirements } from './helpers/x402.js'

/**
 * Our facilitator's answers as the stock facilitator clients read them: mppx's (its zod schemas,
 * which a stock mppx seller applies to /verify and /settle) and @x402/core's HTTPFacilitatorClient.
 * Valid, invalid, settled and refused answers all parse; a valid /verify omits invalidReason.
 */
let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
}, 120_000)
afterAll(async () => d?.close())

describe('facilitator answers parse in the stock clients', () => {
  it('mppx: /verify valid and invalid, /settle settled and refused', async () => {
    const payer = await evmPayer(d, ['USDC', 'PUSD'], '1')
    const r = requirements(d, { symbol: 'USDC', amount: '0.01', payTo: randomAddress(), method: 'eip3009' })
    const body = await eip3009Body(d, payer, r)
    const valid = await post(d, 'verify', body)
    expect(valid.body).toEqual({ isValid: true, payer: payer.address })
    expect(VerifyResponseSchema.parse(valid.body)).toEqual({ isValid: true, payer: payer.address })
    const invalid = await post(d, 'verify', await eip3009Body(d, payer, r, { value: 1n }))
    expect(VerifyResponseSchema.parse(invalid.body)).toMatchObject({
      isValid: false,
      invalidReason: expect.any(String),
    })
    const settled = await post(d, 'settle', body)
    expect(SettleResponseSchema.parse(settled.body)).toMatchObject({
      success: true,
      transaction: expect.stringMatching(/^0x/),
    })
    const again = await post(d, 'settle', body)
    expect(SettleResponseSchema.parse(again.body)).toMatchObject({
      success: false,
      errorReason: 'duplicate_settlement',
    })
  })

  it('@x402/core HTTPFacilitatorClient: verify valid and invalid, settle', async () => {
    const client = new HTTPFacilitatorClient({ url: d.urls.facilitator })
    const payer = await evmPayer(d, ['PUSD'], '1')
    const r = requirements(d, { symbol: 'PUSD', amount: '0.01', payTo: randomAddress() })
    const body = await erc2612Body(d, payer, r)
    const ok = await client.verify(body.paymentPayload as never, body.paymentRequirements as never)
    expect(ok).toMatchObject({ isValid: true, payer: payer.address })
    const bad = await client.verify((await erc2612Body(d, payer, r, { value: 1n })).paymentPayload as never, r as never)
    expect(bad).toMatchObject({ isValid: false, invalidReason: expect.any(String) })
    const s = await client.settle(body.paymentPayload as never, body.paymentRequirements as never)
    expect(s).toMatchObject({ success: true, payer: payer.address })
    const supported = await client.getSupported()
    expect(supported.extensions).toContain('eip2612GasSponsoring')
  })
})
