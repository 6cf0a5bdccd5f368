import { describe, expect, it } from 'vitest'
import { sellerReceiptOf } from './offer-receipt.js'
import { encodeHeader } from './wire.js'

const res = (name: string, settle: unknown) => ({ headers: new Headers({ [name]: encodeHeader(settle) }) })
const eip712 = {
  format: 'eip712',
  payload: {
    version: 1,
    network: 'eip155:8453',
    resourceUrl: 'https://api.example.com/x',
    payer: '0x1111111111111111111111111111111111111111',
    issuedAt: 1,
    transaction: '',
  },
  signature: `0x${'11'.repeat(65)}`,
}

describe("the seller's receipt (x402 offer-receipt extension)", () => {
  it('is read from PAYMENT-RESPONSE (and v1 X-PAYMENT-RESPONSE) extensions["offer-receipt"].info.receipt, as it came', () => {
    const settle = {
      success: true,
      transaction: `0x${'ab'.repeat(32)}`,
      network: 'eip155:8453',
      extensions: { 'offer-receipt': { info: { receipt: eip712 } } },
    }
    expect(sellerReceiptOf(res('PAYMENT-RESPONSE', settle))).toEqual(eip712)
    expect(sellerReceiptOf(res('X-PAYMENT-RESPONSE', settle))).toEqual(eip712)
    const jws = { format: 'jws', signature: 'eyJhbGciOiJFUzI1NksifQ.eyJ2ZXJzaW9uIjoxfQ.c2ln' }
    expect(
      sellerReceiptOf(
        res('PAYMENT-RESPONSE', { ...settle, extensions: { 'offer-receipt': { info: { receipt: jws } } } }),
      ),
    ).toEqual(jws)
  })

  it('is absent when the answer carries none, or not in either format', () => {
    expect(sellerReceiptOf({ headers: new Headers() })).toBeUndefined()
    expect(sellerReceiptOf(res('PAYMENT-RESPONSE', { success: true }))).toBeUndefined()
    const ext = (receipt: unknown) =>
      res('PAYMENT-RESPONSE', { success: true, extensions: { 'offer-receipt': { info: { receipt } } } })
    expect(sellerReceiptOf(ext({ format: 'eip712', signature: '0x' }))).toBeUndefined()
    expect(sellerReceiptOf(ext({ format: 'pgp', signature: 'x' }))).toBeUndefined()
    expect(sellerReceiptOf(ext('a string'))).toBeUndefined()
    expect(
      sellerReceiptOf(ext({ ...eip712, payload: { ...eip712.payload, resourceUrl: 'x'.repeat(20_000) } })),
    ).toBeUndefined()
  })
})
