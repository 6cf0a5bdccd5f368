import { describe, expect, it } from 'vitest'
import type { SupportedResponse } from '../types.js'
import { offersFor } from './offers.js'

/** A batch-settlement offer always names the facilitator's receiver authorizer (issue 39 item 2). */
const asset = '0x00000000000000000000000000000000000000a1'
const supported = (extra: Record<string, unknown>): SupportedResponse =>
  ({
    kinds: [
      {
        x402Version: 2,
        scheme: 'batch-settlement',
        network: 'eip155:84532',
        extra: { asset, symbol: 'USDC', decimals: 6, name: 'USD Coin', version: '2', ...extra },
      },
    ],
    extensions: [],
    signers: {},
  }) as SupportedResponse
const price = {
  network: 'eip155:84532',
  asset: 'USDC',
  amount: '1000',
  payTo: '0x00000000000000000000000000000000000000c1',
  scheme: 'batch-settlement' as const,
}
const resource = { url: 'http://127.0.0.1/r', description: '', mimeType: '' }

describe('offersFor: batch-settlement', () => {
  it("names the facilitator's receiver authorizer", () => {
    const ra = '0x00000000000000000000000000000000000000a9'
    expect(offersFor([price], supported({ receiverAuthorizer: ra }), resource)[0]!.v2.extra).toMatchObject({
      receiverAuthorizer: ra,
      withdrawDelay: 900,
    })
  })
  it('builds no offer when the facilitator names none (or the zero address): BATCH_AUTHORIZER_NOT_CONFIGURED', () => {
    for (const extra of [{}, { receiverAuthorizer: '0x0000000000000000000000000000000000000000' }]) {
      expect(() => offersFor([price], supported(extra), resource)).toThrow(
        expect.objectContaining({ code: 'BATCH_AUTHORIZER_NOT_CONFIGURED' }),
      )
    }
  })
})
