import { describe, expect, it } from 'vitest'
import type { Payment } from '../../src/sdk/x402/wire.js'
import { type PaidFacilitatorService, paidFacilitator } from './paid-facilitator.js'

const requirements = {
  scheme: 'exact',
  network: 'eip155:31337',
  asset: '0x0000000000000000000000000000000000000001',
  amount: '1',
  payTo: '0x00000000000000000000000000000000000000aa',
  maxTimeoutSeconds: 60,
  extra: {},
}
const body = {
  x402Version: 2,
  paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature: '0x' } },
  paymentRequirements: requirements,
}

function service() {
  const calls = { supported: 0, settled: [] as Payment[] }
  const s: PaidFacilitatorService = {
    supported: () => (calls.supported++, { kinds: [], extensions: [], signers: {} }),
    verify: async () => ({ isValid: true, payer: '0x1' }),
    settle: async (p) => (
      calls.settled.push(p), { success: true, transaction: '0x2', network: p.network, payer: '0x1' }
    ),
  }
  return { s, calls }
}

describe('paidFacilitator', () => {
  it('answers /supported for every endpoint from one read per TTL, not one per paid request', async () => {
    const { s, calls } = service()
    let t = 0
    const forEndpoint = paidFacilitator(s, { supportedTtlMs: 1000, now: () => t })
    for (let i = 0; i < 50; i++) await forEndpoint(`0x${i}`).supported()
    expect(calls.supported).toBe(1)
    t = 1001
    await forEndpoint('0x1').supported()
    expect(calls.supported).toBe(2)
  })

  it("settles as the endpoint's payTo: the receiver comes from the platform, not from the body", async () => {
    const { s, calls } = service()
    const f = paidFacilitator(s)('0x00000000000000000000000000000000000000aa')
    await f.settle({ ...body, caller: { wallet: async () => '0xforged' } })
    expect(calls.settled).toHaveLength(1)
    expect(await calls.settled[0]!.caller!.wallet()).toBe('0x00000000000000000000000000000000000000aa')
  })

  it('asks as a caller without a key when the platform names no receiver', async () => {
    const { s, calls } = service()
    await paidFacilitator(s)(undefined).settle(body)
    expect(await calls.settled[0]!.caller!.wallet()).toBeUndefined()
  })

  it('answers a malformed body in x402 shape, as the HTTP route does, without calling the service', async () => {
    const { s, calls } = service()
    const f = paidFacilitator(s)('0xaa')
    expect(await f.settle({ paymentPayload: {}, paymentRequirements: requirements })).toMatchObject({
      success: false,
      errorReason: expect.stringMatching(/^invalid_/),
      network: 'eip155:31337',
    })
    expect(await f.verify({})).toMatchObject({ isValid: false, invalidReason: expect.stringMatching(/^invalid_/) })
    expect(calls.settled).toHaveLength(0)
  })
})
