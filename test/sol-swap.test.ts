import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Keypair, type PublicKey, Transaction, VersionedTransaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type SolClient, solClient } from './helpers/sol.js'

let d: TestDaemon
let c: SolClient
beforeAll(async () => {
  d = await startTestDaemon()
  c = await solClient(d)
})
afterAll(async () => d?.close())

/** Every balance a swap between `user` and the solver can move. */
async function snapshot(user: PublicKey) {
  const [userUSDC, userPUSD, userXUSD, solverUSDC, solverPUSD, solverXUSD, userSol] = await Promise.all([
    c.tokenBalance(user, USDC),
    c.tokenBalance(user, TOKEN_A),
    c.tokenBalance(user, TOKEN_B),
    c.tokenBalance(c.solver, USDC),
    c.tokenBalance(c.solver, TOKEN_A),
    c.tokenBalance(c.solver, TOKEN_B),
    c.solBalance(user),
  ])
  return { userUSDC, userPUSD, userXUSD, solverUSDC, solverPUSD, solverXUSD, userSol }
}

describe('Solana swaps with an unmodified @solana/web3.js', () => {
  it('a fresh wallet with 0 SOL buys PUSD with USDC: it signs, submits to the RPC, confirms, and both sides moved exactly', async () => {
    const user = Keypair.generate()
    await c.fund(user.publicKey, USDC, '100')
    const before = await snapshot(user.publicKey)
    expect(before.userSol).toBe(0n)

    const r = await c.post('/api/sol/swap', {
      net: 'mainnet',
      user: user.publicKey.toBase58(),
      uiAmount: '12.5',
      in: USDC,
      out: TOKEN_A,
    })
    expect(r.status).toBe(200)
    const built = r.body
    expect(built).toMatchObject({
      kind: 'entry',
      network: d.services.solana.key,
      in: USDC,
      out: TOKEN_A,
      inAmount: 12.5,
      inAmountBase: '12500000',
      outAmount: 12.5,
      outAmountBase: '12500000000',
      feePayer: c.solver.toBase58(),
      createsTokenAccount: true,
    })
    const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
    expect(tx.feePayer!.equals(c.solver)).toBe(true)
    expect(tx.recentBlockhash).toBe(built.blockhash)
    // The solver has signed; only the user's signature is missing.
    expect(tx.signatures.map((s) => [s.publicKey.toBase58(), s.signature !== null])).toEqual([
      [c.solver.toBase58(), true],
      [user.publicKey.toBase58(), false],
    ])

    tx.partialSign(user)
    const signature = await c.connection.sendRawTransaction(tx.serialize())
    expect(signature).toBe(built.signature)
    const { value } = await c.connection.confirmTransaction({
      signature,
      blockhash: built.blockhash,
      lastValidBlockHeight: built.lastValidBlockHeight,
    })
    expect(value.err).toBeNull()

    const after = await snapshot(user.publicKey)
    expect(after.userUSDC).toBe(before.userUSDC - 12_500_000n)
    expect(after.userPUSD).toBe(12_500_000_000n)
    expect(after.solverUSDC).toBe(before.solverUSDC + 12_500_000n)
    expect(after.solverPUSD).toBe(before.solverPUSD - 12_500_000_000n)
    expect(after.userSol).toBe(0n)

    const confirm = await c.get(`/api/sol/confirm?sig=${signature}`)
    expect(confirm.body).toMatchObject({
      sig: signature,
      status: 'included',
      success: true,
      swap: { kind: 'entry', user: user.publicKey.toBase58() },
    })
    const recent = await d.call('/api/sol/recent', { query: { limit: '5' } })
    expect(recent.swaps[0]).toMatchObject({
      signature,
      status: 'confirmed',
      kind: 'entry',
      inAmountBase: '12500000',
      outAmountBase: '12500000000',
    })
  })

  it('redeems PUSD for exactly the quoted USDC, signing as a VersionedTransaction', async () => {
    const user = Keypair.generate()
    await c.fund(user.publicKey, TOKEN_A, '50')
    const before = await snapshot(user.publicKey)
    const quote = (await c.get(`/api/sol/redeem/quote?net=mainnet&in=${TOKEN_A}&amount=50`)).body
    expect(quote).toMatchObject({
      in: TOKEN_A,
      out: USDC,
      chain: d.services.solana.key,
      inAmount: 50,
      usdcDec: 6,
      deliverFrom: 'inventory',
    })
    expect(quote.usdc).toBe(c.mints[USDC]!.toBase58())
    expect(quote.inputToken).toBe(c.mints[TOKEN_A]!.toBase58())
    expect(BigInt(quote.minOutBase)).toBeLessThanOrEqual(BigInt(quote.usdcOutBase))
    expect(BigInt(quote.usdcOutBase)).toBeLessThan(50_000_000n)
    expect(quote.slippageBps).toBeLessThanOrEqual(quote.slippageBpsMax)

    const r = await c.post('/api/sol/redeem', {
      net: d.services.solana.key,
      user: user.publicKey.toBase58(),
      uiAmount: '50',
      minOutBase: quote.minOutBase,
    })
    expect(r.status).toBe(200)
    // Nothing moved the solver's inventory in between, so the price is the quote's.
    expect(r.body).toMatchObject({
      kind: 'redeem',
      in: TOKEN_A,
      out: USDC,
      outAmountBase: quote.usdcOutBase,
      createsTokenAccount: true,
    })
    const tx = VersionedTransaction.deserialize(Buffer.from(r.body.txB64, 'base64'))
    tx.sign([user])
    const signature = await c.connection.sendRawTransaction(tx.serialize())
    const { value } = await c.connection.confirmTransaction({
      signature,
      blockhash: r.body.blockhash,
      lastValidBlockHeight: r.body.lastValidBlockHeight,
    })
    expect(value.err).toBeNull()

    const after = await snapshot(user.publicKey)
    const paid = BigInt(quote.usdcOutBase)
    expect(after.userPUSD).toBe(0n)
    expect(after.userUSDC).toBe(paid)
    expect(after.solverPUSD).toBe(before.solverPUSD + 50_000_000_000n)
    expect(after.solverUSDC).toBe(before.solverUSDC - paid)
    expect(after.userSol).toBe(0n)
  })

  it('swaps partner stables at par across decimals (PUSD 9 -> XUSD 6) into an existing account', async () => {
    const user = Keypair.generate()
    await c.fund(user.publicKey, TOKEN_A, '10')
    await c.fund(user.publicKey, TOKEN_B, '1')
    const before = await snapshot(user.publicKey)
    const { built } = await c.swap(user, { uiAmount: '2.25', in: TOKEN_A, out: TOKEN_B.toLowerCase() })
    expect(built).toMatchObject({ kind: 'par', outAmountBase: '2250000', createsTokenAccount: false })
    const after = await snapshot(user.publicKey)
    expect(after.userPUSD).toBe(before.userPUSD - 2_250_000_000n)
    expect(after.userXUSD).toBe(before.userXUSD + 2_250_000n)
    expect(after.solverPUSD).toBe(before.solverPUSD + 2_250_000_000n)
    expect(after.solverXUSD).toBe(before.solverXUSD - 2_250_000n)
  })

  it('refuses a transaction submitted after its blockhash expired; nothing moves and confirm says expired', async () => {
    const user = Keypair.generate()
    await c.fund(user.publicKey, USDC, '5')
    const r = await c.post('/api/sol/swap', { user: user.publicKey.toBase58(), uiAmount: '5' })
    expect(r.status).toBe(200)
    const before = await snapshot(user.publicKey)
    const height = await c.connection.getBlockHeight()
    await d.services.solana.testHooks!.advanceSlots(r.body.lastValidBlockHeight - height + 1)

    const tx = Transaction.from(Buffer.from(r.body.txB64, 'base64'))
    tx.partialSign(user)
    await expect(c.connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/blockhash not found/i)
    expect(await snapshot(user.publicKey)).toEqual(before)
    const confirm = await c.get(`/api/sol/confirm?sig=${r.body.signature}`)
    expect(confirm.body).toMatchObject({ status: 'expired', swap: { kind: 'entry' } })
    const recent = await d.call('/api/sol/recent')
    expect(recent.swaps.map((s: { signature: string }) => s.signature)).not.toContain(r.body.signature)
  })

  it('refuses a transaction the user changed after the solver signed it; nothing moves', async () => {
    const user = Keypair.generate()
    const thief = Keypair.generate()
    await c.fund(user.publicKey, USDC, '10')
    const tamperings: Array<(tx: Transaction) => void> = [
      // pay the user ten times the output
      (tx) => {
        const payout = tx.instructions.find((ix) => ix.keys[3]?.pubkey.equals(c.solver))!
        payout.data.writeBigUInt64LE(payout.data.readBigUInt64LE(1) * 10n, 1)
      },
      // send the output to another wallet's account
      (tx) => {
        const payout = tx.instructions.find((ix) => ix.keys[3]?.pubkey.equals(c.solver))!
        payout.keys[2]!.pubkey = getAssociatedTokenAddressSync(c.mints[TOKEN_A]!, thief.publicKey)
      },
    ]
    for (const tamper of tamperings) {
      const r = await c.post('/api/sol/swap', { user: user.publicKey.toBase58(), uiAmount: '10' })
      expect(r.status).toBe(200)
      const before = await snapshot(user.publicKey)
      const tx = Transaction.from(Buffer.from(r.body.txB64, 'base64'))
      tamper(tx)
      tx.partialSign(user)
      await expect(c.connection.sendRawTransaction(tx.serialize({ verifySignatures: false }))).rejects.toThrow(
        /signature verification failure/i,
      )
      expect(await snapshot(user.publicKey)).toEqual(before)
    }
  })
})
