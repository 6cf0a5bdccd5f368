import { randomUUID } from 'node:crypto'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyReceipt } from '../../../src/sdk/platform/receipt-verify.js'
import { receiptsQuery, signedReceipt } from '../../../src/sdk/platform/receipts.js'
import { encodeHeader } from '../../../src/sdk/x402/wire.js'
import { openTestStore } from '../../../test/helpers/store.js'
import type { Store } from '../../store/store.js'
import { type ReceiptInput, receiptIssuer } from './issue.js'
import { receiptStore } from './store.js'

/**
 * The receipt issuer on the store under test (SQLite, and PostgreSQL in the postgres project): a
 * receipt is signed with the deployment's key, stored with its payment before it is returned, read
 * back exactly as signed (so it still verifies), never re-signed, kept with the seller's own receipt,
 * and paged newest first per agent.
 */
let store: Store
const key = generatePrivateKey()
const signer = privateKeyToAccount(key).address
const agent = { id: randomUUID(), address: '0x1111111111111111111111111111111111111111' }
const T0 = Date.parse('2026-11-01T00:00:00Z')

beforeAll(async () => {
  store = await openTestStore()
})
afterAll(async () => {
  await store?.close()
})

const input = (over: Partial<ReceiptInput> = {}): ReceiptInput => ({
  paymentId: randomUUID(),
  agent,
  host: 'api.example.com',
  payTo: '0x2222222222222222222222222222222222222222',
  network: 'eip155:8453',
  token: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6 },
  amount: 10_000n,
  protocol: 'x402-v2',
  transaction: `0x${'ab'.repeat(32)}`,
  ...over,
})

describe('receipt issuer', () => {
  it('signs every field with the receipt key and stores the receipt before answering; it verifies as read back', async () => {
    const issuer = receiptIssuer({ key, store: receiptStore(store), now: () => T0 + 1500 })
    expect(issuer.signer).toBe(signer)
    const x = input()
    const r = (await issuer.issue(x))!
    expect(signedReceipt.parse(r)).toEqual(r)
    expect(r.message).toEqual({
      paymentId: x.paymentId,
      agentId: agent.id,
      agentWallet: agent.address,
      host: 'api.example.com',
      payTo: x.payTo,
      network: 'eip155:8453',
      token: x.token.address,
      symbol: 'USDC',
      decimals: 6,
      amount: '10000',
      protocol: 'x402-v2',
      transaction: x.transaction,
      paidAt: T0 / 1000 + 1,
    })
    expect(r).toMatchObject({
      signer,
      sellerReceipt: null,
      domain: { name: 'parx receipt', version: '1' },
      primaryType: 'Receipt',
    })
    const stored = (await receiptStore(store).get(agent.id, x.paymentId))!
    expect(stored).toEqual(r)
    expect(await verifyReceipt(stored, { signer })).toMatchObject({ valid: true })
    // Another agent asking for it gets nothing.
    expect(await receiptStore(store).get(randomUUID(), x.paymentId)).toBeUndefined()
  })

  it("keeps the seller's offer-receipt beside ours, outside what we sign", async () => {
    const seller = {
      format: 'eip712',
      payload: {
        version: 1,
        network: 'eip155:8453',
        resourceUrl: 'https://api.example.com/x',
        payer: agent.address,
        issuedAt: 1,
        transaction: '',
      },
      signature: `0x${'11'.repeat(65)}`,
    }
    const headers = new Headers({
      'PAYMENT-RESPONSE': encodeHeader({
        success: true,
        extensions: { 'offer-receipt': { info: { receipt: seller } } },
      }),
    })
    const r = (await receiptIssuer({ key, store: receiptStore(store) }).issue(input({ seller: { headers } })))!
    expect(r.sellerReceipt).toEqual(seller)
    expect((await receiptStore(store).get(agent.id, r.message.paymentId))!.sellerReceipt).toEqual(seller)
    expect((await verifyReceipt(r, { signer })).valid).toBe(true)
  })

  it('never re-signs a payment: a second issue keeps and returns the first receipt', async () => {
    const x = input()
    const first = (await receiptIssuer({ key, store: receiptStore(store), now: () => T0 }).issue(x))!
    const again = (await receiptIssuer({
      key: generatePrivateKey(),
      store: receiptStore(store),
      now: () => T0 + 60_000,
    }).issue({ ...x, amount: 1n }))!
    expect(again).toEqual(first)
  })

  it('a store that fails or a field that cannot be signed: no receipt, logged, not thrown (the money has moved; the pay still answers)', async () => {
    const errors: unknown[] = []
    const failing = { ...receiptStore(store), put: async () => Promise.reject(new Error('disk full')) }
    const r = await receiptIssuer({ key, store: failing, log: { error: (o: unknown) => void errors.push(o) } }).issue(
      input(),
    )
    expect(r).toBeUndefined()
    expect(errors).toHaveLength(1)
    // A payee that is not an address cannot be signed as one: the same, never a thrown pay.
    expect(
      await receiptIssuer({
        key,
        store: receiptStore(store),
        log: { error: (o: unknown) => void errors.push(o) },
      }).issue(input({ payTo: 'not-an-address' })),
    ).toBeUndefined()
    expect(errors).toHaveLength(2)
  })

  it("pages an agent's receipts newest first, by since/until, without repeats", async () => {
    const a = { id: randomUUID(), address: agent.address }
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      const x = input({ agent: a })
      ids.push(x.paymentId)
      // Two share a millisecond: the payment id breaks the tie.
      await receiptIssuer({ key, store: receiptStore(store), now: () => T0 + (i < 2 ? 0 : i) * 1000 }).issue(x)
    }
    const s = receiptStore(store)
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const p = await s.page(a.id, receiptsQuery.parse({ limit: '2', ...(cursor ? { cursor } : {}) }))
      seen.push(...p.receipts.map((r) => r.message.paymentId))
      cursor = p.nextCursor ?? undefined
    } while (cursor)
    expect(new Set(seen).size).toBe(5)
    expect(seen.slice(0, 3)).toEqual([ids[4], ids[3], ids[2]])
    expect(new Set(seen.slice(3))).toEqual(new Set([ids[0], ids[1]]))
    const window = await s.page(
      a.id,
      receiptsQuery.parse({ since: new Date(T0 + 2000).toISOString(), until: new Date(T0 + 4000).toISOString() }),
    )
    expect(window.receipts.map((r) => r.message.paymentId)).toEqual([ids[3], ids[2]])
  })
})
