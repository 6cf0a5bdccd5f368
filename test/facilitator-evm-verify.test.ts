import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  eip3009Body,
  erc2612Body,
  evmPayer,
  localBase,
  nowSeconds,
  randomAddress,
  requirements,
  settle,
  verify,
  type X402Body,
} from './helpers/x402.js'

let d: TestDaemon
let payer: PrivateKeyAccount
const seller = randomAddress()

beforeAll(async () => {
  d = await startTestDaemon()
  payer = await evmPayer(d, ['USDC', 'PUSD'], '100')
})
afterAll(async () => d?.close())

const reasonOf = async (body: X402Body) => {
  const v = await verify(d, body)
  expect(v.isValid, JSON.stringify(v)).toBe(false)
  return v.invalidReason
}

/** The same failures for both EVM methods; `sign` builds a payment of that method with one field bent. */
const methods = [
  { name: 'eip3009', symbol: 'USDC', sign: eip3009Body },
  { name: 'erc2612', symbol: 'PUSD', sign: erc2612Body },
] as const

for (const m of methods) {
  describe(`${m.name} verify`, () => {
    const req = (o: { amount?: string; maxTimeoutSeconds?: number } = {}) =>
      requirements(d, {
        symbol: m.symbol,
        amount: o.amount ?? '1.5',
        payTo: seller,
        method: m.name,
        maxTimeoutSeconds: o.maxTimeoutSeconds,
      })

    it('accepts a correct payment and names the payer', async () => {
      expect(await verify(d, await m.sign(d, payer, req()))).toEqual({ isValid: true, payer: payer.address })
    })

    it('rejects a signature by another key', async () => {
      const other = privateKeyToAccount(generatePrivateKey())
      expect(await reasonOf(await m.sign(d, payer, req(), { signer: other }))).toBe('invalid_exact_evm_signature')
    })

    it('rejects a payment to someone other than payTo', async () => {
      expect(await reasonOf(await m.sign(d, payer, req(), { to: randomAddress() }))).toBe(
        'invalid_exact_evm_recipient_mismatch',
      )
    })

    it('rejects an amount short of the price', async () => {
      const r = req()
      expect(await reasonOf(await m.sign(d, payer, r, { value: BigInt(r.amount) - 1n }))).toBe(
        'invalid_exact_evm_payload_authorization_value_mismatch',
      )
    })

    it('rejects an expired authorization and one not valid yet', async () => {
      expect(await reasonOf(await m.sign(d, payer, req(), { validBefore: nowSeconds() - 10n }))).toBe(
        'invalid_exact_evm_payload_authorization_valid_before',
      )
      expect(await reasonOf(await m.sign(d, payer, req(), { validAfter: nowSeconds() + 3600n }))).toBe(
        'invalid_exact_evm_payload_authorization_valid_after',
      )
    })

    it('rejects a payer who cannot cover the price', async () => {
      const poor = privateKeyToAccount(generatePrivateKey())
      expect(await reasonOf(await m.sign(d, poor, req()))).toBe('invalid_exact_evm_insufficient_balance')
    })

    it('rejects a domain that is not the token’s', async () => {
      const r = req()
      r.extra = { ...r.extra, name: 'Not The Token' }
      expect(await reasonOf(await m.sign(d, payer, r))).toBe('invalid_exact_evm_token_name_mismatch')
    })

    it('rejects a reused nonce once the first payment settled', async () => {
      const r = req({ amount: '0.25' })
      const body = await m.sign(d, payer, r)
      const first = await settle(d, body)
      expect(first.body.success, JSON.stringify(first.body)).toBe(true)
      expect(await reasonOf(body)).toBe('invalid_exact_evm_nonce_already_used')
    })
  })
}

describe('erc2612 only', () => {
  const req = (maxTimeoutSeconds = 120) =>
    requirements(d, { symbol: 'PUSD', amount: '1', payTo: seller, method: 'erc2612', maxTimeoutSeconds })

  it('rejects a permit for a spender other than the facilitator’s signer', async () => {
    const elsewhere = randomAddress()
    // Stated in the payload: named as such; only signed: the signature does not match our spender.
    expect(await reasonOf(await erc2612Body(d, payer, req(), { spender: elsewhere }))).toBe(
      'invalid_exact_evm_permit_spender_mismatch',
    )
    const signedOnly = await erc2612Body(d, payer, req(), { spender: elsewhere })
    delete (signedOnly.paymentPayload.payload as any).authorization.spender
    expect(await reasonOf(signedOnly)).toBe('invalid_exact_evm_signature')
  })

  it('takes a permit larger than the price but moves only the price', async () => {
    const r = req()
    const body = await erc2612Body(d, payer, r, { value: BigInt(r.amount) * 3n })
    expect((await verify(d, body)).isValid).toBe(true)
    const before = await localBase(d).balance('PUSD', seller)
    expect((await settle(d, body)).body.success).toBe(true)
    expect((await localBase(d).balance('PUSD', seller)) - before).toBe(BigInt(r.amount))
  })

  it('rejects a deadline beyond maxTimeoutSeconds and a nonce ahead of the token', async () => {
    expect(await reasonOf(await erc2612Body(d, payer, req(60), { validBefore: nowSeconds() + 3600n }))).toBe(
      'invalid_exact_evm_payload_authorization_valid_before',
    )
    const ahead = (await localBase(d).permitNonce('PUSD', payer.address)) + 5n
    expect(await reasonOf(await erc2612Body(d, payer, req(), { nonce: ahead }))).toBe(
      'invalid_exact_evm_permit_nonce_mismatch',
    )
  })
})
