import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import {
  Keypair,
  LAMPORTS_PER_SOL,
  type PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import bs58 from 'bs58'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_B, tokenSpec } from '../../src/networks/registry.js'
import { SOLVER_INVENTORY } from './setup.js'
import { frozenClock, startTestCluster, type TestCluster, tempDir } from './testing.js'

let cluster: TestCluster
let payer: Keypair
const dir = tempDir()

type RpcReply = { result?: any; error?: { code: number; message: string; data?: any } }
const call = (method: string, params?: unknown[]): Promise<RpcReply> =>
  fetch(cluster.rpc.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) }),
  }).then((r) => r.json() as Promise<RpcReply>)

function transferTx(to: PublicKey, lamports: number, blockhash: string, version: 'legacy' | 0 = 'legacy') {
  const message = new TransactionMessage({
    payerKey: payer.publicKey,
    recentBlockhash: blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports })],
  })
  return new VersionedTransaction(version === 0 ? message.compileToV0Message() : message.compileToLegacyMessage())
}

beforeAll(async () => {
  cluster = await startTestCluster(`${dir.dir}/parx.db`, { clock: frozenClock() })
  payer = Keypair.generate()
  await cluster.svm.airdrop(payer.publicKey.toBase58(), 10n * BigInt(LAMPORTS_PER_SOL))
})
afterAll(async () => {
  await cluster.stop()
  dir.remove()
})

describe('embedded Solana RPC methods', () => {
  it('simulates unsigned, with a replaced blockhash, and with account states', async () => {
    const to = Keypair.generate().publicKey
    const { blockhash } = await cluster.connection.getLatestBlockhash()
    const tx = transferTx(to, LAMPORTS_PER_SOL, blockhash)
    const unsigned = Buffer.from(tx.serialize()).toString('base64')
    const sim = await call('simulateTransaction', [
      unsigned,
      {
        encoding: 'base64',
        accounts: { addresses: [to.toBase58()], encoding: 'base64' },
      },
    ])
    expect(sim.result.value.err).toBeNull()
    expect(sim.result.value.logs).toContain('Program 11111111111111111111111111111111 success')
    expect(sim.result.value.accounts[0].lamports).toBe(LAMPORTS_PER_SOL)
    expect(await cluster.connection.getBalance(to)).toBe(0)

    expect((await call('simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: true }])).error?.code).toBe(
      -32003,
    )
    cluster.svm.advanceSlots(200)
    expect((await call('simulateTransaction', [unsigned, { encoding: 'base64' }])).result.value.err).toBe(
      'BlockhashNotFound',
    )
    const replaced = await call('simulateTransaction', [unsigned, { encoding: 'base64', replaceRecentBlockhash: true }])
    expect(replaced.result.value.err).toBeNull()
    expect(replaced.result.value.replacementBlockhash.blockhash).toBe(
      (await cluster.connection.getLatestBlockhash()).blockhash,
    )
    const both = await call('simulateTransaction', [
      unsigned,
      { encoding: 'base64', replaceRecentBlockhash: true, sigVerify: true },
    ])
    expect(both.error?.code).toBe(-32602)
  })

  it('sends base58 by default and returns transactions in json and base64', async () => {
    const { blockhash } = await cluster.connection.getLatestBlockhash()
    const tx = transferTx(Keypair.generate().publicKey, 1_000_000, blockhash)
    tx.sign([payer])
    const sent = await call('sendTransaction', [bs58.encode(tx.serialize())])
    expect(sent.result).toBe(bs58.encode(tx.signatures[0]!))
    const b64 = await call('getTransaction', [sent.result, { encoding: 'base64' }])
    expect(b64.result.transaction).toEqual([Buffer.from(tx.serialize()).toString('base64'), 'base64'])
    expect(b64.result.version).toBeUndefined()
    const json = await call('getTransaction', [sent.result, 'json'])
    expect(json.result.transaction.message.recentBlockhash).toBe(blockhash)
    expect(json.result.meta.status).toEqual({ Ok: null })
    expect(json.result.meta.fee).toBe(5000)

    const v0 = transferTx(Keypair.generate().publicKey, 1_000_000, blockhash, 0)
    v0.sign([payer])
    const signature = await cluster.connection.sendRawTransaction(v0.serialize())
    expect((await call('getTransaction', [signature])).error?.code).toBe(-32015)
    expect((await call('getTransaction', [signature, { maxSupportedTransactionVersion: 0 }])).result.version).toBe(0)
    const parsed = await cluster.connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(parsed?.transaction.message.accountKeys[0]).toMatchObject({
      signer: true,
      writable: true,
      source: 'transaction',
    })
    expect(parsed?.transaction.message.instructions[0]?.programId.equals(SystemProgram.programId)).toBe(true)
    expect((await call('getTransaction', [bs58.encode(new Uint8Array(64).fill(7))])).result).toBeNull()
  })

  it('answers the cluster and token reads', async () => {
    const xusd = cluster.mints[TOKEN_B]!
    const decimals = tokenSpec('local-solana', TOKEN_B)!.decimals
    const supply = await cluster.connection.getTokenSupply(xusd)
    expect(BigInt(supply.value.amount)).toBe(SOLVER_INVENTORY * 10n ** BigInt(decimals))
    expect(supply.value.decimals).toBe(decimals)
    const ata = getAssociatedTokenAddressSync(xusd, cluster.keys.solver.publicKey)
    const [mint, account, missing] = await cluster.connection.getMultipleAccountsInfo([
      xusd,
      ata,
      Keypair.generate().publicKey,
    ])
    expect(mint?.data.length).toBe(82)
    expect(account?.data.length).toBe(165)
    expect(missing).toBeNull()
    expect(await cluster.connection.getMinimumBalanceForRentExemption(165)).toBe(2_039_280)
    const epoch = await cluster.connection.getEpochInfo()
    expect(epoch.absoluteSlot).toBe(epoch.slotIndex + epoch.epoch * epoch.slotsInEpoch)
    expect(epoch.transactionCount).toBeGreaterThan(0)
    expect((await cluster.connection.getVersion())['solana-core']).toMatch(/^\d+\.\d+\.\d+$/)
    expect((await call('getHealth')).result).toBe('ok')
    const recent = await call('getRecentBlockhash')
    expect(recent.result.value.feeCalculator.lamportsPerSignature).toBe(5000)
    expect((await call('getTokenAccountBalance', [xusd.toBase58()])).error?.code).toBe(-32602)
  })

  it('refuses bad requests with the node codes', async () => {
    const slot = await cluster.connection.getSlot()
    const ahead = await call('getBalance', [payer.publicKey.toBase58(), { minContextSlot: slot + 10_000 }])
    expect(ahead.error?.code).toBe(-32016)
    expect((await call('requestAirdrop', [payer.publicKey.toBase58(), -1])).error?.code).toBe(-32602)
    expect((await call('getBalance', [payer.publicKey.toBase58(), {}, 'extra'])).error?.code).toBe(-32602)
    expect((await call('sendTransaction', ['!!!', { encoding: 'base64' }])).error?.code).toBe(-32602)
    expect((await call('getSignatureStatuses', [['x']])).error?.code).toBe(-32602)
    const legacy = new Transaction({
      feePayer: payer.publicKey,
      ...(await cluster.connection.getLatestBlockhash()),
    }).add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: payer.publicKey, lamports: 1 }))
    legacy.sign(payer)
    // Still answering after all of the above.
    expect(await cluster.connection.sendRawTransaction(legacy.serialize())).toBe(bs58.encode(legacy.signature!))
  })
})
