import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js'
import bs58 from 'bs58'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import type { ChainDb } from './chain-db.js'
import { createLocalSvm, type LocalSvm } from './local-svm.js'
import { frozenClock, tempDir } from './testing.js'

const dir = tempDir()
let db: ChainDb
let svm: LocalSvm
beforeAll(() => {
  db = openChainDb(`${dir.dir}/parx.db`)
  svm = createLocalSvm({ db, ...frozenClock() })
})
afterAll(() => {
  db.close()
  dir.remove()
})

const lamports = (k: Keypair) => svm.getAccount(k.publicKey.toBase58())?.lamports ?? 0n

function transfer(from: Keypair, to: Keypair, amount: number) {
  const tx = new Transaction({
    feePayer: from.publicKey,
    blockhash: svm.latestBlockhash().blockhash,
    lastValidBlockHeight: 0,
  }).add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports: amount }))
  tx.sign(from)
  return tx.serialize()
}

describe('group commit of the embedded cluster', () => {
  it('commits transactions submitted together in one SQLite transaction, on disk before anyone hears back', async () => {
    const payers = Array.from({ length: 5 }, () => Keypair.generate())
    for (const p of payers) await svm.airdrop(p.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const to = Keypair.generate()
    const wires = payers.map((p) => transfer(p, to, 1_000_000))
    const reader = openChainDb(`${dir.dir}/parx.db`)
    const onDisk = (sig: string) =>
      reader.prepare('SELECT 1 FROM solana_transactions WHERE signature = ?').get(sig) !== undefined
    const heard: boolean[] = []
    const stop = svm.onTransaction.add((e) => heard.push(onDisk(e.signature)))
    const outer = vi.spyOn(db, 'transaction')
    let topLevel = 0
    outer.mockImplementation(function (this: ChainDb, fn) {
      const wrapped = ChainDbTransaction.call(this, fn)
      const counted =
        (f: (...args: unknown[]) => unknown) =>
        (...args: unknown[]) => {
          if (!db.inTransaction) topLevel++
          return f(...args)
        }
      // Its variants (deferred, immediate, exclusive) are not enumerable: each counted too.
      return Object.assign(counted(wrapped), {
        deferred: counted(wrapped.deferred),
        immediate: counted(wrapped.immediate),
        exclusive: counted(wrapped.exclusive),
      })
    } as ChainDb['transaction'])
    const signatures = await Promise.all(
      wires.map(async (w) => {
        const sig = await svm.submit(w)
        expect(onDisk(sig)).toBe(true)
        return sig
      }),
    )
    outer.mockRestore()
    stop()
    reader.close()
    expect(signatures).toHaveLength(5)
    expect(topLevel).toBe(1)
    expect(heard).toEqual([true, true, true, true, true])
    expect(svm.getAccount(to.publicKey.toBase58())?.lamports).toBe(5_000_000n)
  })

  it('takes back, in memory too, a transaction whose write fails, and lands the rest of its group', async () => {
    const [a, b] = [Keypair.generate(), Keypair.generate()]
    await svm.airdrop(a.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    await svm.airdrop(b.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const to = Keypair.generate()
    const doomed = transfer(a, to, 1_000_000)
    const doomedSig = bs58.encode(Transaction.from(doomed).signature!)
    db.exec(
      `CREATE TEMP TRIGGER fail_one BEFORE INSERT ON solana_transactions WHEN NEW.signature = '${doomedSig}' BEGIN SELECT RAISE(ABORT, 'disk says no'); END`,
    )
    try {
      const [failed, landed] = await Promise.allSettled([svm.submit(doomed), svm.submit(transfer(b, to, 2_000_000))])
      expect(failed).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/disk says no/) } })
      expect(landed.status).toBe('fulfilled')
    } finally {
      db.exec('DROP TRIGGER fail_one')
    }
    expect(lamports(a)).toBe(BigInt(LAMPORTS_PER_SOL))
    expect(svm.getAccount(to.publicKey.toBase58())?.lamports).toBe(2_000_000n)
    expect(svm.txs.has(doomedSig)).toBe(false)
  })
})

const ChainDbTransaction = Object.getPrototypeOf(openChainDb(':memory:')).transaction as ChainDb['transaction']
