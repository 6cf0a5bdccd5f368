import { Keypair } from '@solana/web3.js'
import bs58 from 'bs58'
import { describe, expect, it, vi } from 'vitest'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import {
  checkSplAuthorization,
  createSplPayload,
  keypairSigner,
  parseSplPayload,
  splMessage,
  verifySplSignature,
} from './delegated-spl.js'

const payer = Keypair.generate()
const seller = Keypair.generate().publicKey.toBase58()
const r: PaymentRequirements = {
  scheme: 'exact',
  network: 'solana:x',
  asset: 'mint',
  amount: '2500',
  payTo: seller,
  maxTimeoutSeconds: 60,
  extra: {},
}
const now = 1_700_000_000n

describe('delegated-spl', () => {
  it('signs exactly the SPEC message', () => {
    const text = new TextDecoder().decode(splMessage({ from: 'A', to: 'B', amount: 5n, nonce: 'n1', deadline: 99n }))
    expect(text).toBe('from:A|to:B|amount:5|nonce:n1|deadline:99')
  })

  it('verifies what the payer signed and nothing else', async () => {
    const payload = await createSplPayload(keypairSigner(payer), r, now)
    const a = parseSplPayload(payload)
    if ('reason' in a) throw new Error(a.message)
    expect(a).toMatchObject({ from: payer.publicKey.toBase58(), to: seller, amount: 2500n, deadline: now + 60n })
    expect(checkSplAuthorization(a, r, now)).toBeUndefined()
    expect(verifySplSignature(splMessage({ ...a, amount: a.amount + 1n }), a.signature, a.from)).toBe(false)
    expect(verifySplSignature(splMessage(a), a.signature, Keypair.generate().publicKey.toBase58())).toBe(false)
  })

  it('accepts the message field names (amount, deadline) as well as the x402 ones (value, validBefore)', async () => {
    const payload = await createSplPayload(keypairSigner(payer), r, now)
    const { value, validBefore, ...rest } = payload.authorization
    const a = parseSplPayload({
      signature: payload.signature,
      authorization: { ...rest, amount: value, deadline: validBefore },
    })
    expect('reason' in a).toBe(false)
  })

  it('checks recipient, amount and window', async () => {
    const a = parseSplPayload(await createSplPayload(keypairSigner(payer), r, now))
    if ('reason' in a) throw new Error(a.message)
    expect(checkSplAuthorization(a, { ...r, payTo: Keypair.generate().publicKey.toBase58() }, now)?.reason).toBe(
      reasons.svmSplRecipientMismatch,
    )
    expect(checkSplAuthorization(a, { ...r, amount: '2501' }, now)?.reason).toBe(reasons.svmSplAmountMismatch)
    expect(checkSplAuthorization(a, r, now + 120n)?.reason).toBe(reasons.svmSplDeadline)
  })

  it('rejects malformed payloads by field', () => {
    expect(parseSplPayload({ signature: bs58.encode(new Uint8Array(64)) })).toMatchObject({
      reason: reasons.invalidPayload,
      message: 'payload.authorization is missing or malformed',
    })
    expect(parseSplPayload({ signature: 'x', authorization: {} })).toMatchObject({
      message: 'payload.signature is missing or malformed',
    })
  })
})

describe('parseSplPayload bounds (issue 14 item 2)', () => {
  it('refuses a 63,000-character signature or pubkey without decoding it', () => {
    const decode = vi.spyOn(bs58, 'decode')
    const authorization = {
      from: payer.publicKey.toBase58(),
      to: seller,
      value: '1',
      validAfter: '0',
      validBefore: '1',
      nonce: 'n',
    }
    expect(parseSplPayload({ signature: '2'.repeat(63_000), authorization })).toMatchObject({
      reason: reasons.invalidPayload,
      message: expect.stringContaining('signature'),
    })
    expect(decode).not.toHaveBeenCalled()
    const sig = bs58.encode(new Uint8Array(64).fill(1))
    decode.mockClear()
    expect(
      parseSplPayload({ signature: sig, authorization: { ...authorization, from: '3'.repeat(63_000) } }),
    ).toMatchObject({ message: expect.stringContaining('authorization.from') })
    expect(decode.mock.calls.every(([s]) => String(s).length <= 88)).toBe(true)
    decode.mockRestore()
  })
})
