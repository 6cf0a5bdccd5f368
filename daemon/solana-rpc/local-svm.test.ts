import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError } from '../../src/errors/index.js'
import { deploymentStore } from '../chains/embedded/deployments.js'
import { openChainDb } from '../chains/embedded/solana-chain-db.js'
import { openStore, type Store } from '../store/store.js'
import type { ChainDb } from './chain-db.js'
import { faucet } from './faucet.js'
import { createLocalSvm, type LocalSvm } from './local-svm.js'
import { ensureLocalSolana } from './setup.js'
import { frozenClock } from './testing.js'
import { SolanaTxError } from './tx-error.js'

let db: ChainDb
let store: Store
let mints: Record<string, import('@solana/web3.js').PublicKey>
let svm: LocalSvm
const mintAuthority = Keypair.generate()

beforeAll(async () => {
  db = openChainDb(':memory:')
  store = await openStore({ file: ':memory:' })
  svm = createLocalSvm({ db, ...frozenClock() })
  ;({ mints } = await ensureLocalSolana({
    svm,
    deployments: deploymentStore(store),
    mintAuthority,
    solver: Keypair.generate(),
    facilitator: Keypair.generate(),
  }))
})
afterAll(async () => {
  db.close()
  await store.close()
})

const lamports = (k: Keypair) => svm.getAccount(k.publicKey.toBase58())?.lamports ?? 0n

function transfer(from: Keypair, amount: bigint, blockhash = svm.latestBlockhash().blockhash) {
  const tx = new Transaction({ feePayer: from.publicKey, blockhash, lastValidBlockHeight: 0 }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: Keypair.generate().publicKey, lamports: amount }),
  )
  tx.sign(from)
  return tx
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof SolanaTxError ? e.reason : String(e)),
  )

describe('LocalSvm', () => {
  it('refuses bytes that are not a transaction without crashing', async () => {
    const good = transfer(Keypair.generate(), 1n).serialize()
    const cases = [new Uint8Array(), new Uint8Array([1, 2, 3]), good.subarray(0, good.length - 3), new Uint8Array(2000)]
    for (const bytes of cases) expect(await reason(svm.submit(bytes))).toBe('malformed')
    expect(svm.tick()).toBeGreaterThan(0)
  })

  it('refuses a missing signature', async () => {
    const payer = Keypair.generate()
    await svm.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const tx = new Transaction({
      feePayer: payer.publicKey,
      blockhash: svm.latestBlockhash().blockhash,
      lastValidBlockHeight: 0,
    }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1000 }),
    )
    const unsigned = tx.serialize({ requireAllSignatures: false, verifySignatures: false })
    expect(await reason(svm.submit(unsigned))).toBe('signature')
    expect(await reason(svm.submit(unsigned, { skipPreflight: true }))).toBe('signature')
    expect(lamports(payer)).toBe(BigInt(LAMPORTS_PER_SOL))
  })

  it('lands a failing transaction only without preflight, charging just the fee', async () => {
    const payer = Keypair.generate()
    await svm.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const tooMuch = transfer(payer, 5n * BigInt(LAMPORTS_PER_SOL))
    const refused = await svm.submit(tooMuch.serialize()).catch((e: SolanaTxError) => e)
    expect(refused).toBeInstanceOf(SolanaTxError)
    expect((refused as SolanaTxError).err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect((refused as SolanaTxError).logs.join('\n')).toMatch(/insufficient lamports/)
    expect(lamports(payer)).toBe(BigInt(LAMPORTS_PER_SOL))

    const signature = await svm.submit(tooMuch.serialize(), { skipPreflight: true })
    expect(svm.txs.get(signature)?.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(lamports(payer)).toBe(BigInt(LAMPORTS_PER_SOL) - 5000n)
  })

  it('gives identical airdrops distinct signatures', async () => {
    const to = Keypair.generate().publicKey.toBase58()
    const [a, b] = await Promise.all([svm.airdrop(to, 1_000_000_000n), svm.airdrop(to, 1_000_000_000n)])
    expect(a).not.toBe(b)
    expect(svm.getAccount(to)?.lamports).toBe(2_000_000_000n)
  })

  it('expires a blockhash after 150 blocks', async () => {
    const payer = Keypair.generate()
    await svm.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const { blockhash, lastValidBlockHeight } = svm.latestBlockhash()
    svm.advanceSlots(lastValidBlockHeight - svm.clock.blockHeight())
    expect(svm.clock.isBlockhashValid(blockhash)).toBe(true)
    svm.advanceSlots(1)
    expect(svm.clock.isBlockhashValid(blockhash)).toBe(false)
    const refused = await svm.submit(transfer(payer, 1000n, blockhash).serialize()).catch((e: SolanaTxError) => e)
    expect((refused as SolanaTxError).err).toBe('BlockhashNotFound')
  })

  it('faucet mints exactly and refuses what it cannot represent', async () => {
    const to = Keypair.generate().publicKey
    await faucet({ svm, mintAuthority, mints, to, symbol: 'XUSD', amount: '0.000001' })
    await faucet({ svm, mintAuthority, mints, to, symbol: 'xusd', amount: '123456789.123456' })
    const sol = await faucet({ svm, mintAuthority, mints, to, symbol: 'SOL', amount: '1.5' })
    expect(sol).toHaveLength(1)
    expect(svm.getAccount(to.toBase58())?.lamports).toBe(1_500_000_000n)
    const err = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => (e instanceof BaseError ? e.code : String(e)),
      )
    expect(await err(faucet({ svm, mintAuthority, mints, to, symbol: 'XUSD', amount: '0.0000001' }))).toBe(
      'BAD_REQUEST',
    )
    expect(await err(faucet({ svm, mintAuthority, mints, to, symbol: 'XUSD', amount: '1e3' }))).toBe('BAD_REQUEST')
    expect(await err(faucet({ svm, mintAuthority, mints, to, symbol: 'XUSD', amount: '0' }))).toBe('BAD_REQUEST')
    expect(await err(faucet({ svm, mintAuthority, mints, to, symbol: 'DOGE', amount: '1' }))).toBe('UNKNOWN_TOKEN')
  })
  it("preflight gives a simulation's verdict and logs, lands nothing, and checks the blockhash and, when asked, the signatures", async () => {
    const payer = Keypair.generate()
    await svm.airdrop(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL))
    const tenth = BigInt(LAMPORTS_PER_SOL / 10)
    const good = transfer(payer, tenth).serialize()
    const ok = svm.preflight(good, { sigVerify: true })
    expect(ok.err).toBeNull()
    expect(ok.logs.join('\n')).toContain('11111111111111111111111111111111 success')
    const tooMuch = transfer(payer, 2n * BigInt(LAMPORTS_PER_SOL)).serialize()
    const refused = svm.preflight(tooMuch, { sigVerify: false })
    expect(refused.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(refused.logs.join('\n')).toContain('insufficient lamports')
    // What the RPC's simulation answers for the same bytes.
    for (const [wire, outcome] of [
      [good, ok],
      [tooMuch, refused],
    ] as const) {
      const sim = svm.simulate(wire)
      expect({ err: sim.err, logs: sim.logs }).toEqual(outcome)
    }
    expect(lamports(payer)).toBe(BigInt(LAMPORTS_PER_SOL))
    expect(
      svm.preflight(transfer(payer, tenth, Keypair.generate().publicKey.toBase58()).serialize(), { sigVerify: false })
        .err,
    ).toBe('BlockhashNotFound')
    const unsigned = new Transaction({
      feePayer: payer.publicKey,
      blockhash: svm.latestBlockhash().blockhash,
      lastValidBlockHeight: 0,
    })
      .add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: tenth,
        }),
      )
      .serialize({ requireAllSignatures: false, verifySignatures: false })
    expect(svm.preflight(unsigned, { sigVerify: false }).err).toBeNull()
    expect(() => svm.preflight(unsigned, { sigVerify: true })).toThrow(SolanaTxError)
  })
})
