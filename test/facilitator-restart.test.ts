import { afterAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle } from './helpers/x402.js'

let d: TestDaemon | undefined
afterAll(async () => d?.close())

const row = (t: TestDaemon, key: string) =>
  t.services.store.db
    .selectFrom('x402_settlements')
    .select(['state', 'tx'])
    .where('auth_key', '=', key)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst()

describe('settlements a stopped daemon left pending', () => {
  it('are decided from the chain at the next start: settled if the nonce was used, released if not', async () => {
    d = await startTestDaemon()
    const payer = await evmPayer(d, ['USDC'], '10')
    const seller = randomAddress()
    const r = requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
    const landed = await eip3009Body(d, payer, r)
    const stranded = await eip3009Body(d, payer, r)
    const first = await settle(d, landed)
    expect(first.body.success).toBe(true)
    const { db } = d.services.store
    const keys = (await db.selectFrom('x402_settlements').select('auth_key').orderBy('id').execute()).map(
      (r) => r.auth_key,
    )
    // As if the daemon died (a while ago) after broadcasting the first and after claiming the second.
    await db
      .updateTable('x402_settlements')
      .set({ state: 'pending', updated_at: 0 })
      .where('auth_key', '=', keys[0]!)
      .execute()
    const nonce = ((stranded.paymentPayload.payload as any).authorization.nonce as string).toLowerCase()
    const strandedKey = keys[0]!.replace(/[^:]+$/, nonce)
    await db
      .insertInto('x402_settlements')
      .values({
        auth_key: strandedKey,
        network: localBase(d).caip2,
        method: 'eip3009',
        pay_to: seller,
        asset: r.asset,
        amount: r.amount,
        state: 'pending',
        created_at: 0,
        updated_at: 0,
      })
      .execute()
    expect((await settle(d, stranded)).body.errorReason).toBe('duplicate_settlement')

    const dataDir = d.dataDir
    await d.close({ keepData: true })
    d = await startTestDaemon({ dataDir })
    // The worker duty decides what the previous run left pending.
    await d.services.worker!.firstPass
    expect(await row(d, keys[0]!)).toMatchObject({ state: 'settled' })
    expect(await row(d, strandedKey)).toMatchObject({ state: 'failed' })
    // Released: the stranded authorization can now be settled, once.
    expect((await settle(d, stranded)).body.success).toBe(true)
    expect(await localBase(d).balance('USDC', seller)).toBe(2n * BigInt(r.amount))
  })
})
