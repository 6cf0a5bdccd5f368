import { afterEach, describe, expect, it } from 'vitest'
import { openTestStore, testDialect } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { paymentIdStore } from './payment-ids.js'

const opened: Store[] = []
const ledger = async () => {
  const store = await openTestStore()
  opened.push(store)
  return paymentIdStore(store)
}
afterEach(async () => void (await Promise.all(opened.splice(0).map((s) => s.close()))))

describe(`payment-identifier ledger (${testDialect()})`, () => {
  it('binds an id to the first fingerprint, per seller, even when many bind at once', async () => {
    const ids = await ledger()
    const rows = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ids.bind({ scope: '0xseller', paymentId: 'pay_0123456789abcdef', fingerprint: `f${i}`, network: 'eip155:1' }),
      ),
    )
    expect(new Set(rows.map((r) => r.fingerprint)).size).toBe(1)
    expect(new Set(rows.map((r) => Number(r.id))).size).toBe(1)
    const other = await ids.bind({
      scope: '0xother',
      paymentId: 'pay_0123456789abcdef',
      fingerprint: 'g',
      network: 'eip155:1',
    })
    expect(other.fingerprint).toBe('g')
    expect(await ids.find('pay_0123456789abcdef')).toHaveLength(2)
    expect(await ids.find('pay_0123456789abcdef', '0xother')).toHaveLength(1)
  })

  it('keeps the first verify and settle answers, and links the settlement', async () => {
    const ids = await ledger()
    const row = await ids.bind({ scope: 's', paymentId: 'pay_aaaaaaaaaaaaaaaa', fingerprint: 'f', network: 'n' })
    await ids.saveVerify(row.id, { isValid: true, payer: '0x1' })
    await ids.saveVerify(row.id, { isValid: false })
    await ids.saveSettle(row.id, { success: false, errorReason: 'first' })
    await ids.saveSettle(row.id, { success: false, errorReason: 'second' })
    await ids.link(row.id, 42)
    const [again] = await ids.find('pay_aaaaaaaaaaaaaaaa', 's')
    expect(JSON.parse(again!.verify_answer!)).toEqual({ isValid: true, payer: '0x1' })
    expect(JSON.parse(again!.settle_answer!)).toMatchObject({ errorReason: 'first' })
    expect((await ids.bySettlements([42])).map((r) => r.payment_id)).toEqual(['pay_aaaaaaaaaaaaaaaa'])
  })
})
