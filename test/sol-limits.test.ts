import { Keypair } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type SolClient, solClient } from './helpers/sol.js'

let d: TestDaemon
let c: SolClient
beforeAll(async () => {
  // No par cap, so a single swap can ask for more than the solver holds; redemptions switched off.
  d = await startTestDaemon({ flags: { limits: { maxUsd: null }, flows: { 'sol.redeem': false } } })
  c = await solClient(d)
})
afterAll(async () => d?.close())

describe('flow switches', () => {
  it('a disabled sol.redeem refuses the quote and every redemption, on either route; par swaps still build', async () => {
    const user = Keypair.generate()
    await c.fund(user.publicKey, TOKEN_A, '10')
    const body = { user: user.publicKey.toBase58(), uiAmount: '1', in: TOKEN_A, out: USDC }
    for (const r of [
      await c.get('/api/sol/redeem/quote?amount=1'),
      await c.post('/api/sol/redeem', body),
      await c.post('/api/sol/swap', body),
    ]) {
      expect(r.body.code).toBe('FLOW_DISABLED')
      expect(r.status).toBe(403)
    }
    const par = await c.post('/api/sol/swap', { ...body, out: 'XUSD' })
    expect(par.status).toBe(200)
    const caps = await d.call('/api/capabilities')
    expect(JSON.stringify(caps)).toMatch(/sol\.redeem/)
  })
})

describe('inventory', () => {
  it('co-signed transactions reserve the solver output until they land or expire', async () => {
    const whale = Keypair.generate()
    await c.fund(whale.publicKey, USDC, '1500000')
    const before = (await d.call('/api/sol/info')).mints[TOKEN_A]
    const swap = () =>
      c.post('/api/sol/swap', { user: whale.publicKey.toBase58(), uiAmount: '600000', in: USDC, out: TOKEN_A })

    const first = await swap()
    expect(first.status).toBe(200)
    expect((await d.call('/api/sol/info')).mints[TOKEN_A]).toMatchObject({
      inventory: before.inventory,
      available: before.available - 600_000,
    })
    // Two unlanded transactions would promise 1.2M of a 1M inventory: the second is refused.
    const second = await swap()
    expect(second.body.code).toBe('INVENTORY_SHORT')
    expect(second.status).toBe(400)
    expect(second.body.error).toMatch(/promised to swaps not yet landed/)

    // Once the first can no longer land, its reservation is released.
    const height = await c.connection.getBlockHeight()
    await d.services.solana.testHooks!.advanceSlots(first.body.lastValidBlockHeight - height + 1)
    expect((await d.call('/api/sol/info')).mints[TOKEN_A].available).toBe(before.available)
    const third = await swap()
    expect(third.status).toBe(200)
  })

  it('a swap larger than the whole inventory is INVENTORY_SHORT', async () => {
    const whale = Keypair.generate()
    await c.fund(whale.publicKey, USDC, '2000000')
    const r = await c.post('/api/sol/swap', {
      user: whale.publicKey.toBase58(),
      uiAmount: '1000001',
      in: USDC,
      out: 'XUSD',
    })
    expect(r.body.code).toBe('INVENTORY_SHORT')
    expect(r.status).toBe(400)
  })
})
