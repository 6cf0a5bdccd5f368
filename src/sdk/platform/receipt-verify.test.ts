import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { RECEIPT_DOMAIN, type ReceiptMessage, receiptTypedData } from './receipt-typed-data.js'
import { parseReceipts, verifyReceipt } from './receipt-verify.js'
import type { SignedReceipt } from './receipts.js'

/** Receipts signed with viem as the platform signs them, checked offline: valid as signed, invalid once any field changes or another key is expected. */
const platform = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d')
const other = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a')

const message: ReceiptMessage = {
  paymentId: '6f1c2c1e-8a52-4a8e-9d5c-2f8b1e0e6a11',
  agentId: '0b7f3a52-1f0e-4c4d-8c55-2f1b7f0c9e22',
  agentWallet: '0x1111111111111111111111111111111111111111',
  host: 'api.example.com',
  payTo: '0x2222222222222222222222222222222222222222',
  network: 'eip155:8453',
  token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  symbol: 'USDC',
  decimals: 6,
  amount: '10000',
  protocol: 'x402-v2',
  transaction: `0x${'ab'.repeat(32)}`,
  paidAt: 1_795_000_000,
}

async function signed(m: ReceiptMessage = message, by = platform): Promise<SignedReceipt> {
  return {
    domain: { ...RECEIPT_DOMAIN },
    primaryType: 'Receipt',
    message: m,
    signature: await by.signTypedData(receiptTypedData(m)),
    signer: by.address,
    sellerReceipt: null,
  }
}

/** Another value of each field, of the right form (so only the signature can tell). */
const changed: { [K in keyof ReceiptMessage]: ReceiptMessage[K] } = {
  paymentId: '6f1c2c1e-8a52-4a8e-9d5c-2f8b1e0e6a12',
  agentId: '0b7f3a52-1f0e-4c4d-8c55-2f1b7f0c9e23',
  agentWallet: '0x1111111111111111111111111111111111111112',
  host: 'api.example.org',
  payTo: '0x2222222222222222222222222222222222222223',
  network: 'eip155:84532',
  token: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  symbol: 'USDT',
  decimals: 18,
  amount: '10001',
  protocol: 'mpp',
  transaction: `0x${'cd'.repeat(32)}`,
  paidAt: 1_795_000_001,
}

describe('receipt signatures (EIP-712, offline)', () => {
  it('a receipt verifies against the key that signed it, pinned or as named', async () => {
    const r = await signed()
    expect(await verifyReceipt(r, { signer: platform.address })).toEqual({
      valid: true,
      recovered: platform.address,
      expected: platform.address,
      pinned: true,
    })
    expect(await verifyReceipt(r)).toMatchObject({ valid: true, pinned: false })
  })

  it.each(Object.keys(changed) as (keyof ReceiptMessage)[])('changing %s fails', async (field) => {
    const r = await signed()
    const tampered = { ...r, message: { ...r.message, [field]: changed[field] } }
    const v = await verifyReceipt(tampered, { signer: platform.address })
    expect(v.valid).toBe(false)
    expect(v.recovered).not.toBe(platform.address)
    expect((await verifyReceipt(tampered)).valid).toBe(false)
  })

  it('fails against another signer: pinned, and when the receipt names a signer that did not sign it', async () => {
    const r = await signed()
    expect(await verifyReceipt(r, { signer: other.address })).toMatchObject({
      valid: false,
      recovered: platform.address,
      expected: other.address,
    })
    expect((await verifyReceipt({ ...r, signer: other.address })).valid).toBe(false)
    // Signed by another key naming itself: valid as named, not against the platform's pinned key.
    const forged = await signed(message, other)
    expect((await verifyReceipt(forged)).valid).toBe(true)
    expect((await verifyReceipt(forged, { signer: platform.address })).valid).toBe(false)
  })

  it('an unreadable signature recovers to no one', async () => {
    const r = await signed()
    expect(
      await verifyReceipt({ ...r, signature: `0x${'00'.repeat(65)}` }, { signer: platform.address }),
    ).toMatchObject({ valid: false, recovered: null })
  })
})

describe('parseReceipts', () => {
  it('reads one receipt, an array, a page and JSON lines', async () => {
    const [a, b] = [await signed(), await signed({ ...message, paymentId: changed.paymentId })]
    expect(parseReceipts(JSON.stringify(a))).toEqual([a])
    expect(parseReceipts(JSON.stringify([a, b]))).toEqual([a, b])
    expect(parseReceipts(JSON.stringify({ receipts: [a, b], nextCursor: null }))).toEqual([a, b])
    expect(parseReceipts(`${JSON.stringify(a)}\n${JSON.stringify(b)}\n`)).toEqual([a, b])
  })

  it('refuses what is not a receipt, naming the field', async () => {
    const a = await signed()
    expect(() => parseReceipts('')).toThrow(/no receipt/)
    expect(() => parseReceipts('{"x":1}\nnot json')).toThrow(/line 2 is not JSON/)
    expect(() => parseReceipts(JSON.stringify({ ...a, message: { ...a.message, amount: '1.5' } }))).toThrow(
      /message\.amount/,
    )
    expect(() => parseReceipts(JSON.stringify({ ...a, message: { ...a.message, extra: 'unsigned' } }))).toThrow(
      /message/,
    )
    expect(() => parseReceipts(JSON.stringify({ ...a, domain: { name: 'other', version: '1' } }))).toThrow(
      /domain\.name/,
    )
  })
})
