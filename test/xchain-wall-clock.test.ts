import { Keypair } from '@solana/web3.js'
import { afterAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { isSettled, openOrder, PUSD_SOL, xchainClient } from './helpers/xchain.js'

// Issue 26 item 1: the embedded Solana cluster keeps wall time, so an order's deadlines, built from
// its clock, are what an integrator reads on their own clock (they were 400 s late).
const daemons: TestDaemon[] = []
afterAll(async () => {
  for (const d of daemons) await d.close()
})
const wall = () => Date.now() / 1000

describe('cross-chain deadlines are wall-clock times', () => {
  // Short, so the wait for expiry is too; 4 s to open the order in, and the two deadlines' ranges (±2 s) apart.
  it('PARX_XCHAIN_FILL_SECONDS=4 PARX_XCHAIN_EXPIRY_SECONDS=9: expires 9 s ahead, and the order nobody filled is refunded after it, in real time', async () => {
    const d = await startTestDaemon({ env: { PARX_XCHAIN_FILL_SECONDS: '4', PARX_XCHAIN_EXPIRY_SECONDS: '9' } })
    daemons.push(d)
    const x = await xchainClient(d)
    // Nobody fills: the order can only end refunded, at its expiry.
    await x.operator('/api/solver/pause', {})
    const asked = wall()
    const { user, built } = await openOrder(x, TOKEN_A, '2', '2')
    expect(built.expires - asked).toBeGreaterThanOrEqual(7)
    expect(built.expires - asked).toBeLessThanOrEqual(11)
    expect(built.fillDeadline - asked).toBeGreaterThanOrEqual(2)
    expect(built.fillDeadline - asked).toBeLessThanOrEqual(6)
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(0n)

    // No test hook moves the cluster's clock: the refund comes once real time passes expires.
    const done = await x.waitStatus(built.orderId, isSettled, 40_000)
    expect(done.status).toBe('refunded')
    expect(wall()).toBeGreaterThanOrEqual(built.expires)
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(2n * PUSD_SOL)
  }, 180_000) // a daemon start, then the 9 s to expiry and the worker's refund

  it('the default build answers fillDeadline 300 s and expires 900 s from now, as docs/cross-chain.md says', async () => {
    const d = await startTestDaemon()
    daemons.push(d)
    const x = await xchainClient(d)
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '5')
    const asked = wall()
    const r = await x.build(user, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '1', recipientEvm: x.newRecipient() })
    expect(r.status).toBe(200)
    expect(Math.abs(r.body.fillDeadline - asked - 300)).toBeLessThanOrEqual(2)
    expect(Math.abs(r.body.expires - asked - 900)).toBeLessThanOrEqual(2)
  }, 120_000) // a daemon start
})
