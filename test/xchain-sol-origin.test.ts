import { Keypair, Transaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { xchainClient, type XchainClient } from './helpers/xchain.js'

let d: TestDaemon
let x: XchainClient
beforeAll(async () => {
  d = await startTestDaemon({ file: { xchain: { fillSeconds: 20, expirySeconds: 30 } } })
  x = await xchainClient(d)
})
afterAll(async () => d?.close())

describe('sol-origin: lock on Solana, fill on Base, claim on Solana', () => {
  it('a wallet with 0 SOL opens; the solver delivers on Base, 2 of 3 attestors sign, the solver claims: balances exact on both chains', async () => {
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '100')
    const recipient = x.newRecipient()
    const solver = d.services.accounts.solver
    const before = {
      userSol: await x.tokenBalance(user.publicKey, TOKEN_A), solverSol: await x.tokenBalance(x.solver, TOKEN_A),
      recipient: await x.baseBalance(recipient, TOKEN_A), solverBase: await x.baseBalance(solver, TOKEN_A),
    }
    expect(await x.solBalance(user.publicKey)).toBe(0n)

    const r = await x.build(user, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '12.5', recipientEvm: recipient })
    expect(r.status).toBe(200)
    const built = r.body
    expect(built).toMatchObject({
      rail: 'sol-origin', inAmount: 12.5, outAmount: 12.5, inAmountBase: '12500000000', outAmountBase: '12500000000000000000',
      outToken: TOKEN_A, recipient, feePayer: x.solver.toBase58(),
    })
    expect(built.orderId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(built.expires).toBeGreaterThan(built.fillDeadline)
    const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
    expect(tx.feePayer!.equals(x.solver)).toBe(true)
    expect(tx.signatures.map((s) => [s.publicKey.toBase58(), s.signature !== null])).toEqual([
      [x.solver.toBase58(), true], [user.publicKey.toBase58(), false],
    ])
    // Before the lock lands: nothing confirmed on chain.
    expect((await x.status(built.orderId)).body).toMatchObject({ status: 'unknown', orderId: built.orderId })

    await x.submit(user, built)
    const done = await x.waitStatus(built.orderId, (b) => b.status !== 'pending' && b.status !== 'unknown')
    expect(done).toMatchObject({
      orderId: built.orderId, rail: 'sol-origin', status: 'claimed', delivered: '12500000000000000000', recipient, reason: null,
    })
    expect(done.deliverRef).toMatch(/^0x[0-9a-f]{64}$/)
    expect(typeof done.claimRef).toBe('string')

    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(before.userSol - 12_500_000_000n)
    expect(await x.tokenBalance(x.solver, TOKEN_A)).toBe(before.solverSol + 12_500_000_000n)
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(before.recipient + 12_500_000_000_000_000_000n)
    expect(await x.baseBalance(solver, TOKEN_A)).toBe(before.solverBase - 12_500_000_000_000_000_000n)
    expect(await x.solBalance(user.publicKey)).toBe(0n)
    // The id answers with or without 0x.
    expect((await x.status(built.orderId.slice(2))).body.status).toBe('claimed')
  })
})
