import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js'
import { afterAll, describe, expect, it } from 'vitest'
import { TOKEN_A, USDC } from '../../src/networks/registry.js'
import { faucet } from './faucet.js'
import { startTestCluster, tempDir } from './testing.js'

const dir = tempDir()
afterAll(() => dir.remove())

describe('restart of the embedded cluster', () => {
  it('keeps balances, mints, history and the clock', async () => {
    const file = `${dir.dir}/parx.db`
    const first = await startTestCluster(file)
    const user = Keypair.generate()
    const payer = Keypair.generate()
    await first.connection.requestAirdrop(payer.publicKey, LAMPORTS_PER_SOL)
    await faucet({
      svm: first.svm,
      mintAuthority: first.keys.mintAuthority,
      mints: first.mints,
      to: user.publicKey,
      symbol: TOKEN_A,
      amount: '12.34',
    })
    const { blockhash, lastValidBlockHeight } = await first.connection.getLatestBlockhash()
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: user.publicKey, lamports: 1_000_000 }),
    )
    tx.sign(payer)
    const signature = await first.connection.sendRawTransaction(tx.serialize())
    const ata = getAssociatedTokenAddressSync(first.mints[TOKEN_A]!, user.publicKey)
    const slotBefore = await first.connection.getSlot()
    const payerBalance = await first.connection.getBalance(payer.publicKey)
    await first.stop()

    const second = await startTestCluster(file, { keys: first.keys })
    try {
      expect(Object.fromEntries(Object.entries(second.mints).map(([k, v]) => [k, v.toBase58()]))).toEqual(
        Object.fromEntries(Object.entries(first.mints).map(([k, v]) => [k, v.toBase58()])),
      )
      expect((await second.connection.getTokenAccountBalance(ata)).value.uiAmountString).toBe('12.34')
      expect(await second.connection.getBalance(user.publicKey)).toBe(1_000_000)
      expect(await second.connection.getBalance(payer.publicKey)).toBe(payerBalance)
      const solverUsdc = getAssociatedTokenAddressSync(second.mints[USDC]!, first.keys.solver.publicKey)
      expect((await second.connection.getTokenAccountBalance(solverUsdc)).value.uiAmountString).toBe('1000000')
      const got = await second.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
      expect(got?.meta?.postBalances[1]).toBe(1_000_000)
      expect((await second.connection.getSignatureStatus(signature)).value?.err).toBeNull()
      expect(await second.connection.getSlot()).toBeGreaterThanOrEqual(slotBefore)
      // The history survived, so the same transaction is still a duplicate.
      await expect(second.connection.sendRawTransaction(tx.serialize())).rejects.toThrow(/already been processed/)
    } finally {
      await second.stop()
    }
  })
})
