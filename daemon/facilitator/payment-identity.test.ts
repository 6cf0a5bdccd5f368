import { describe, expect, it } from 'vitest'
import { networks } from '../../src/networks/registry.js'
import { canonical } from '../../src/sdk/x402/canonical-json.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { Resolved } from './method.js'
import { identify, scopeOf } from './payment-identity.js'

const spec = Object.values(networks).find((n) => n.family === 'evm')!
const payment = (
  o: {
    id?: unknown
    payload?: Record<string, unknown>
    amount?: string
    payTo?: string
    extensions?: Record<string, unknown>
    scheme?: string
  } = {},
): Resolved => {
  const scheme = o.scheme ?? 'exact'
  const p: Payment = {
    version: 2,
    scheme,
    network: spec.caip2,
    payload: o.payload ?? { signature: '0x1', authorization: { from: '0xa', nonce: '1' } },
    requirements: {
      scheme,
      network: spec.caip2,
      asset: '0xToken',
      amount: o.amount ?? '10',
      payTo: o.payTo ?? '0xAbCdEf0000000000000000000000000000000001',
      maxTimeoutSeconds: 60,
      extra: {},
    },
    extensions: {
      ...(o.extensions ?? {}),
      ...(o.id === undefined ? {} : { 'payment-identifier': { info: { required: false, id: o.id } } }),
    },
  }
  return { ...p, spec, token: { symbol: 'T', address: '0xToken', decimals: 6 } }
}

describe('payment identity', () => {
  it('is absent without an id, refused with a malformed one', () => {
    expect(identify(payment(), payment())).toBeUndefined()
    expect(identify(payment({ id: 'short' }), payment({ id: 'short' }))).toMatchObject({
      reason: 'invalid_payment_identifier',
    })
    expect(identify(payment({ id: 'has spaces in it, 16+' }), payment())).toMatchObject({
      reason: 'invalid_payment_identifier',
    })
  })

  it('scopes to payTo (EVM lowercased) and fingerprints payload, terms and other extensions, whatever the key order', () => {
    const id = 'pay_0123456789abcdef'
    const a = identify(payment({ id }), payment({ id })) as { scope: string; fingerprint: string }
    expect(a.scope).toBe('0xabcdef0000000000000000000000000000000001')
    const reordered = payment({ id, payload: { authorization: { nonce: '1', from: '0xa' }, signature: '0x1' } })
    expect((identify(reordered, reordered) as { fingerprint: string }).fingerprint).toBe(a.fingerprint)
    for (const other of [
      payment({ id, amount: '11' }),
      payment({ id, payload: { signature: '0x2' } }),
      payment({ id, extensions: { eip2612GasSponsoring: { info: { x: 1 } } } }),
    ]) {
      expect((identify(other, other) as { fingerprint: string }).fingerprint).not.toBe(a.fingerprint)
    }
    expect(scopeOf('So1anaAddressBase58')).toBe('So1anaAddressBase58')
    expect(canonical({ b: [1, { d: 2, c: 3 }], a: null })).toBe('{"a":null,"b":[1,{"c":3,"d":2}]}')
  })

  it('is one upto payment whether its terms state the signed maximum (verify) or the amount used (settle)', () => {
    const id = 'pay_0123456789abcdef'
    const fp = (o: Parameters<typeof payment>[0]) =>
      (identify(payment(o), payment(o)) as { fingerprint: string }).fingerprint
    expect(fp({ id, scheme: 'upto', amount: '10' })).toBe(fp({ id, scheme: 'upto', amount: '3' }))
    expect(fp({ id, scheme: 'upto', amount: '10' })).not.toBe(
      fp({ id, scheme: 'upto', amount: '10', payload: { signature: '0x2' } }),
    )
    expect(fp({ id, scheme: 'upto' })).not.toBe(fp({ id }))
  })
})
