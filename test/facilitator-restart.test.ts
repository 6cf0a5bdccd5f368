import { afterAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle } from './helpers/x402.js'

let d: TestDaemon | undefined
afterAll(async () => d?.close())

const row = (t: TestDaemon, key: string) =>
  t.services.db.prepare('SELECT state, tx FROM x402_settlements WHERE auth_key = ? ORDER BY id DESC LIMIT 1').get(key) as { state: string; tx: string | null }

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
    const keys = d.services.db.prepare('SELECT auth_key FROM x402_settlements ORDER BY id').pluck().all() as string[]
    // As if the daemon died after broadcasting the first and after claiming the second.
    d.services.db.prepare(`UPDATE x402_settlements SET state = 'pending' WHERE auth_key = ?`).run(keys[0])
    const nonce = ((stranded.paymentPayload.payload as any).authorization.nonce as string).toLowerCase()
    const strandedKey = keys[0]!.replace(/[^:]+$/, nonce)
    d.services.db.prepare(`INSERT INTO x402_settlements (auth_key, network, method, pay_to, asset, amount, state, created_at, updated_at)
      VALUES (?, ?, 'eip3009', ?, ?, ?, 'pending', 0, 0)`).run(strandedKey, localBase(d).caip2, seller, r.asset, r.amount)
    expect((await settle(d, stranded)).body.errorReason).toBe('duplicate_settlement')

    const dataDir = d.dataDir
    await d.close({ keepData: true })
    d = await startTestDaemon({ dataDir })
    await d.services.facilitator.warmUp()
    expect(row(d, keys[0]!)).toMatchObject({ state: 'settled' })
    expect(row(d, strandedKey)).toMatchObject({ state: 'failed' })
    // Released: the stranded authorization can now be settled, once.
    expect((await settle(d, stranded)).body.success).toBe(true)
    expect(await localBase(d).balance('USDC', seller)).toBe(2n * BigInt(r.amount))
  })
})
