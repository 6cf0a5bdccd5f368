import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  isValidPaymentId as referenceIsValid,
  validatePaymentIdentifier,
} from '@x402/extensions/payment-identifier'
import { describe, expect, it } from 'vitest'
import {
  declarePaymentIdentifier,
  isValidPaymentId,
  newPaymentId,
  paymentIdOf,
  withPaymentId,
} from './payment-identifier.js'

describe('payment-identifier, spoken without @x402/extensions', () => {
  it('declares, generates and validates ids as the reference does', () => {
    expect(declarePaymentIdentifier()).toEqual(declarePaymentIdentifierExtension())
    expect(declarePaymentIdentifier(true)).toEqual(declarePaymentIdentifierExtension(true))
    const id = newPaymentId()
    expect(referenceIsValid(id)).toBe(true)
    for (const c of [
      id,
      'a'.repeat(15),
      'a'.repeat(16),
      'a'.repeat(128),
      'a'.repeat(129),
      'pay_with space_00',
      'pay_ünïcode_0000',
      'pay-ok_ok-ok_ok-1',
    ]) {
      expect(isValidPaymentId(c)).toBe(referenceIsValid(c))
    }
  })

  it('adds an id to what the seller declared, in the shape the reference reads and accepts', () => {
    const declared = { 'payment-identifier': declarePaymentIdentifier(), other: { info: { x: 1 } } }
    const ours = withPaymentId(declared, 'pay_0123456789abcdef')
    const theirs = appendPaymentIdentifierToExtensions(structuredClone(declared), 'pay_0123456789abcdef')
    expect(ours).toEqual(theirs)
    expect(validatePaymentIdentifier(ours['payment-identifier'])).toEqual({ valid: true })
    expect(extractPaymentIdentifier({ extensions: ours } as never)).toBe('pay_0123456789abcdef')
    expect(withPaymentId(undefined, 'pay_0123456789abcdef')).toEqual({
      'payment-identifier': { info: { required: false, id: 'pay_0123456789abcdef' } },
    })
  })

  it('reads the id of a payload: none, valid, or why not', () => {
    expect(paymentIdOf(undefined)).toBeUndefined()
    expect(paymentIdOf({ 'payment-identifier': declarePaymentIdentifier() })).toBeUndefined()
    expect(paymentIdOf(withPaymentId(undefined, 'pay_0123456789abcdef'))).toBe('pay_0123456789abcdef')
    expect(paymentIdOf({ 'payment-identifier': { info: { required: false, id: 'short' } } })).toMatchObject({
      invalid: expect.stringContaining('16-128'),
    })
    expect(paymentIdOf({ 'payment-identifier': 'nope' })).toMatchObject({ invalid: expect.any(String) })
  })
})
