import { address, createSolanaRpc, signature as kitSignature } from '@solana/kit'
import type { PublicKey } from '@solana/web3.js'
import {
  ComputeBudgetProgram,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FIRST_SLOT } from './chain-clock.js'
import { frozenClock, startTestCluster, type TestCluster, tempDir } from './testing.js'

// The reads @solana/web3.js and @solana/kit make to confirm a transaction and look at history,
// each against the embedded RPC with a real transaction in it.
let c: TestCluster
const dir = tempDir()
const payer = Keypair.generate()
const to = Keypair.generate().publicKey
let sig: string
let slot: number

beforeAll(async () => {
  c = await startTestCluster(`${dir.dir}/parx.db`, { clock: frozenClock() })
  await c.svm.airdrop(payer.publicKey.toBase58(), 2n * BigInt(LAMPORTS_PER_SOL))
  c.svm.advanceSlots(2)
  const { blockhash } = await c.connection.getLatestBlockhash()
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 7 }),
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1_000_000 }),
    ],
  }).compileToV0Message()
  const tx = new VersionedTransaction(message)
  tx.sign([payer])
  sig = await c.connection.sendRawTransaction(tx.serialize())
  slot = (await c.connection.getTransaction(sig, { maxSupportedTransactionVersion: 0 }))!.slot
  c.svm.advanceSlots(3)
})
afterAll(async () => {
  await c?.stop()
  dir.remove()
})

describe('confirmation and history reads against the embedded RPC', () => {
  it('@solana/web3.js: statuses (history too), transactions, signatures, heights, blockhashes, fees', async () => {
    const conn = c.connection
    const statuses = await conn.getSignatureStatuses([sig], { searchTransactionHistory: true })
    expect(statuses.value[0]).toMatchObject({ slot, err: null, confirmationStatus: 'finalized' })
    expect((await conn.getTransaction(sig, { maxSupportedTransactionVersion: 0 }))?.meta?.postBalances[1]).toBe(
      1_000_000,
    )
    expect(
      (
        await conn.getParsedTransaction(sig, { maxSupportedTransactionVersion: 0 })
      )?.transaction.message.accountKeys[0]?.pubkey.equals(payer.publicKey),
    ).toBe(true)
    expect((await conn.getSignaturesForAddress(to)).map((s) => s.signature)).toEqual([sig])
    const current = await conn.getSlot()
    expect(current).toBe(slot + 3)
    expect(await conn.getBlockHeight()).toBe(current)
    expect(await conn.getEpochInfo()).toMatchObject({ absoluteSlot: current, blockHeight: current })
    const latest = await conn.getLatestBlockhash()
    expect(await conn.isBlockhashValid(latest.blockhash)).toMatchObject({ value: true })
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: latest.blockhash,
      instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 1 })],
    }).compileToV0Message()
    expect((await conn.getFeeForMessage(message)).value).toBe(5000)
    expect(await conn.getMinimumBalanceForRentExemption(165)).toBe(2_039_280)
    expect(await conn.getTransactionCount()).toBe(c.svm.txs.count())
    expect(await conn.getFirstAvailableBlock()).toBe(FIRST_SLOT)
    expect((await conn.getEpochSchedule()).slotsPerEpoch).toBe(432_000)
  })

  it('@solana/web3.js: blocks, block times and prioritization fees from the recorded history', async () => {
    const conn = c.connection
    const block = await conn.getBlock(slot, { maxSupportedTransactionVersion: 0 })
    expect(block).toMatchObject({ blockHeight: slot, parentSlot: slot - 1, blockTime: await conn.getBlockTime(slot) })
    expect(block!.transactions.map((t) => t.transaction.signatures[0])).toEqual([sig])
    expect(block!.previousBlockhash).toBe(
      (await conn.getBlock(slot - 1, { maxSupportedTransactionVersion: 0 }))!.blockhash,
    )
    expect((await conn.getBlock(slot + 1, { maxSupportedTransactionVersion: 0 }))!.transactions).toEqual([])
    const parsed = await conn.getParsedBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'full' })
    type Keys = { accountKeys: { pubkey: PublicKey }[] }
    expect(
      (parsed.transactions[0]!.transaction as unknown as { message: Keys }).message.accountKeys[1]!.pubkey.equals(to),
    ).toBe(true)
    expect((await conn.getBlockSignatures(slot)).signatures).toEqual([sig])
    const accounts = (await conn.getBlock(slot, {
      maxSupportedTransactionVersion: 0,
      transactionDetails: 'accounts',
    })) as unknown as { transactions: { transaction: Keys }[] }
    expect(accounts.transactions[0]!.transaction.accountKeys[0]!.pubkey.equals(payer.publicKey)).toBe(true)
    expect(await conn.getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: 'none' })).toMatchObject({
      blockhash: block!.blockhash,
    })
    // A version-0 transaction in the block, and no maxSupportedTransactionVersion: refused, as by a node.
    await expect(conn.getBlock(slot)).rejects.toThrow(/Transaction version \(0\) is not supported/)
    await expect(conn.getBlock(slot + 100, { maxSupportedTransactionVersion: 0 })).rejects.toThrow(
      /Block not available for slot/,
    )
    expect(await conn.getBlocks(slot - 1, slot + 1)).toEqual([slot - 1, slot, slot + 1])
    expect(await conn.getBlocks(slot)).toEqual([slot, slot + 1, slot + 2, slot + 3])
    const fees = await conn.getRecentPrioritizationFees({ lockedWritableAccounts: [to] })
    expect(fees.find((f) => f.slot === slot)?.prioritizationFee).toBe(7)
    expect(fees.filter((f) => f.slot !== slot).every((f) => f.prioritizationFee === 0)).toBe(true)
    expect(fees.at(-1)!.slot).toBe(slot + 3)
  })

  it('@solana/kit: the same reads', async () => {
    const rpc = createSolanaRpc(c.rpc.rpcUrl)
    const { value } = await rpc.getSignatureStatuses([kitSignature(sig)], { searchTransactionHistory: true }).send()
    expect(value[0]?.confirmationStatus).toBe('finalized')
    const block = await rpc
      .getBlock(BigInt(slot), { maxSupportedTransactionVersion: 0, transactionDetails: 'signatures', rewards: false })
      .send()
    expect(block?.signatures).toEqual([sig])
    expect(await rpc.getBlockTime(BigInt(slot)).send()).toBe(BigInt(c.svm.clock.unixTimestamp(slot)))
    expect(await rpc.getBlocksWithLimit(BigInt(slot), 2).send()).toEqual([BigInt(slot), BigInt(slot + 1)])
    const fees = await rpc.getRecentPrioritizationFees([address(to.toBase58())]).send()
    expect(fees.find((f) => f.slot === BigInt(slot))?.prioritizationFee).toBe(7n)
    expect(
      (await rpc.getTransaction(kitSignature(sig), { maxSupportedTransactionVersion: 0, encoding: 'json' }).send())
        ?.slot,
    ).toBe(BigInt(slot))
    expect(await rpc.getBlockHeight().send()).toBe(BigInt(slot + 3))
    expect((await rpc.getEpochInfo().send()).absoluteSlot).toBe(BigInt(slot + 3))
    expect(await rpc.minimumLedgerSlot().send()).toBe(BigInt(FIRST_SLOT))
    expect((await rpc.getSignaturesForAddress(address(to.toBase58())).send())[0]?.signature).toBe(sig)
  })
})
