import { describe, expect, it } from 'vitest'
import { decodeHeader, encodeHeader, toPayment } from './wire.js'

const v2Requirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  asset: '0xa',
  amount: '100',
  payTo: '0xb',
  maxTimeoutSeconds: 60,
  extra: { name: 'USD Coin' },
}

describe('x402 headers', () => {
  it('are base64 of UTF-8 JSON, both ways', () => {
    const value = { x402Version: 2, note: 'café' }
    expect(Buffer.from(encodeHeader(value), 'base64').toString('utf8')).toBe(JSON.stringify(value))
    expect(decodeHeader(encodeHeader(value))).toEqual(value)
  })

  it('decode to undefined when they are not base64 JSON objects', () => {
    expect(decodeHeader(undefined)).toBeUndefined()
    expect(decodeHeader('not base64!')).toBeUndefined()
    expect(decodeHeader(Buffer.from('[1]').toString('base64'))).toBeUndefined()
  })
})

describe('toPayment', () => {
  it("accepts maxTimeoutSeconds 0 only for batch-settlement (the official channel manager's claim and settle requirements)", () => {
    const batch = { ...v2Requirements, scheme: 'batch-settlement', amount: '0', maxTimeoutSeconds: 0, extra: {} }
    expect(toPayment({ x402Version: 2, accepted: batch, payload: { type: 'settle' } }, batch)).toMatchObject({
      scheme: 'batch-settlement',
      requirements: { maxTimeoutSeconds: 0 },
    })
    const exact = { ...v2Requirements, maxTimeoutSeconds: 0 }
    expect(toPayment({ x402Version: 2, accepted: exact, payload: {} }, exact)).toEqual({
      malformed: 'requirements',
      field: 'maxTimeoutSeconds',
    })
  })

  it('reads v2: scheme and network from accepted, amount from the requirements', () => {
    const p = toPayment({ x402Version: 2, accepted: v2Requirements, payload: { signature: '0x' } }, v2Requirements)
    expect(p).toEqual({
      version: 2,
      scheme: 'exact',
      network: 'eip155:8453',
      payload: { signature: '0x' },
      requirements: v2Requirements,
    })
  })

  it('reads v1: scheme and network on the payload, maxAmountRequired as the amount', () => {
    const v1 = {
      scheme: 'exact',
      network: 'base',
      maxAmountRequired: '100',
      resource: 'r',
      description: '',
      mimeType: '',
      payTo: '0xb',
      maxTimeoutSeconds: 60,
      asset: '0xa',
      extra: {},
    }
    const p = toPayment({ x402Version: 1, scheme: 'exact', network: 'base', payload: {} }, v1)
    expect(p).toMatchObject({
      version: 1,
      scheme: 'exact',
      network: 'base',
      requirements: { network: 'base', amount: '100', asset: '0xa' },
    })
  })

  it('names the first malformed field', () => {
    expect(toPayment({ accepted: v2Requirements, payload: {} }, v2Requirements)).toEqual({
      malformed: 'payload',
      field: 'x402Version',
    })
    expect(toPayment({ x402Version: 2, accepted: v2Requirements }, v2Requirements)).toEqual({
      malformed: 'payload',
      field: 'payload',
    })
    expect(
      toPayment({ x402Version: 2, accepted: v2Requirements, payload: {} }, { ...v2Requirements, amount: '1.5' }),
    ).toEqual({ malformed: 'requirements', field: 'amount' })
    expect(
      toPayment({ x402Version: 2, accepted: v2Requirements, payload: {} }, { ...v2Requirements, payTo: '' }),
    ).toEqual({ malformed: 'requirements', field: 'payTo' })
  })
})
