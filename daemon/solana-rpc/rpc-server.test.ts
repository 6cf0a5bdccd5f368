import {
  ACCOUNT_SIZE,
  AccountLayout,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token'
import {
  type Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type PublicKey,
  SendTransactionError,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import bs58 from 'bs58'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { networks, TOKEN_A, tokenSpec } from '../../src/networks/registry.js'
import { faucet } from './faucet.js'
import { frozenClock, startTestCluster, type TestCluster, tempDir } from './testing.js'

const PUSD_DECIMALS = tokenSpec('local-solana', TOKEN_A)!.decimals
const units = (whole: bigint) => whole * 10n ** BigInt(PUSD_DECIMALS)

let cluster: TestCluster
let connection: Connection
let pusd: PublicKey
const dir = tempDir()

beforeAll(async () => {
  cluster = await startTestCluster(`${dir.dir}/parx.db`, { clock: frozenClock() })
  connection = cluster.connection
  pusd = cluster.mints[TOKEN_A]!
})
afterAll(async () => {
  await cluster.stop()
  dir.remove()
})

async function fundedKeypair(sol = 2): Promise<Keypair> {
  const kp = Keypair.generate()
  const signature = await connection.requestAirdrop(kp.publicKey, sol * LAMPORTS_PER_SOL)
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash()
  await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })
  return kp
}

async function pusdTransfer(from: Keypair, to: PublicKey, amount: bigint, blockhash?: string) {
  const recentBlockhash = blockhash ?? (await connection.getLatestBlockhash()).blockhash
  const message = new TransactionMessage({
    payerKey: from.publicKey,
    recentBlockhash,
    instructions: [
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(pusd, from.publicKey),
        pusd,
        getAssociatedTokenAddressSync(pusd, to),
        from.publicKey,
        amount,
        PUSD_DECIMALS,
      ),
    ],
  }).compileToV0Message()
  const tx = new VersionedTransaction(message)
  tx.sign([from])
  return tx
}

const tokenBalance = async (owner: PublicKey) =>
  BigInt((await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(pusd, owner))).value.amount)

/** 1 SOL from `payer` to a fresh address, signed on the current blockhash. */
async function signedSolTransfer(payer: Keypair): Promise<VersionedTransaction> {
  const tx = new VersionedTransaction(
    new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: LAMPORTS_PER_SOL,
        }),
      ],
    }).compileToLegacyMessage(),
  )
  tx.sign([payer])
  return tx
}

describe('embedded Solana RPC with an unmodified web3.js Connection', () => {
  it('pays, confirms and moves balances exactly', async () => {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash()
    expect(lastValidBlockHeight).toBe((await connection.getBlockHeight()) + 150)
    const fresh = Keypair.generate()
    expect(await connection.getBalance(fresh.publicKey)).toBe(0)
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: fresh.publicKey,
      symbol: TOKEN_A,
      amount: '25.5',
    })
    expect(await tokenBalance(fresh.publicKey)).toBe(units(255n) / 10n)

    const payer = await fundedKeypair()
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: payer.publicKey,
      symbol: TOKEN_A,
      amount: '100',
    })
    const solBefore = BigInt(await connection.getBalance(payer.publicKey))
    const tx = await pusdTransfer(payer, fresh.publicKey, units(7n), blockhash)
    const fee = (await connection.getFeeForMessage(tx.message)).value
    const signature = await connection.sendRawTransaction(tx.serialize())
    const confirmed = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight })
    expect(confirmed.value.err).toBeNull()

    expect(await tokenBalance(fresh.publicKey)).toBe(units(325n) / 10n)
    expect(await tokenBalance(payer.publicKey)).toBe(units(93n))
    expect(BigInt(await connection.getBalance(payer.publicKey))).toBe(solBefore - BigInt(fee!))
    expect(await connection.getBalance(fresh.publicKey)).toBe(0)

    const got = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(got?.version).toBe(0)
    expect(got?.meta?.fee).toBe(fee)
    const post = got?.meta?.postTokenBalances?.find((b) => b.owner === fresh.publicKey.toBase58())
    expect(post?.uiTokenAmount.uiAmountString).toBe('32.5')
    const history = await connection.getSignaturesForAddress(payer.publicKey)
    expect(history[0]?.signature).toBe(signature)
    const status = await connection.getSignatureStatus(signature)
    expect(status.value?.confirmationStatus).toBe('finalized')
  })

  it('rejects a transaction whose blockhash expired, and a resent one', async () => {
    const payer = await fundedKeypair()
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: payer.publicKey,
      symbol: TOKEN_A,
      amount: '10',
    })
    const fresh = Keypair.generate()
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: fresh.publicKey,
      symbol: TOKEN_A,
      amount: '1',
    })
    const sent = await pusdTransfer(payer, fresh.publicKey, units(1n))
    await connection.sendRawTransaction(sent.serialize())
    await expect(connection.sendRawTransaction(sent.serialize())).rejects.toThrow(/already been processed/)

    const { blockhash } = await connection.getLatestBlockhash()
    const stale = await pusdTransfer(payer, fresh.publicKey, units(2n), blockhash)
    cluster.svm.advanceSlots(151)
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(false)
    await expect(connection.sendRawTransaction(stale.serialize())).rejects.toThrow(/Blockhash not found/)
    await expect(connection.sendRawTransaction(stale.serialize(), { skipPreflight: true })).rejects.toThrow(
      SendTransactionError,
    )
    expect(await tokenBalance(payer.publicKey)).toBe(units(9n))
  })

  it('rejects a tampered transaction and keeps serving', async () => {
    const payer = await fundedKeypair()
    const tx = await signedSolTransfer(payer)
    const raw = tx.serialize()
    raw[1] = raw[1]! ^ 0xff
    await expect(connection.sendRawTransaction(raw)).rejects.toThrow(/signature verification failure/)
    await expect(connection.sendRawTransaction(raw, { skipPreflight: true })).rejects.toThrow(
      /signature verification failure/,
    )
    await expect(connection.sendRawTransaction(raw.subarray(0, 40))).rejects.toThrow(/failed to deserialize/)
    expect(await connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL)
    const signature = await connection.sendRawTransaction(tx.serialize())
    expect((await connection.getSignatureStatus(signature)).value?.err).toBeNull()
  })

  it('lists token accounts by owner, jsonParsed and raw', async () => {
    const owner = Keypair.generate().publicKey
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: owner,
      symbol: TOKEN_A,
      amount: '3.000000001',
    })
    const byMint = await connection.getParsedTokenAccountsByOwner(owner, { mint: pusd })
    expect(byMint.value).toHaveLength(1)
    const account = byMint.value[0]!
    expect(account.pubkey.equals(getAssociatedTokenAddressSync(pusd, owner))).toBe(true)
    expect(account.account.owner.equals(TOKEN_PROGRAM_ID)).toBe(true)
    expect(account.account.data).toEqual({
      program: 'spl-token',
      space: ACCOUNT_SIZE,
      parsed: {
        type: 'account',
        info: {
          isNative: false,
          mint: pusd.toBase58(),
          owner: owner.toBase58(),
          state: 'initialized',
          tokenAmount: {
            amount: '3000000001',
            decimals: PUSD_DECIMALS,
            uiAmount: 3.000000001,
            uiAmountString: '3.000000001',
          },
        },
      },
    })
    const byProgram = await connection.getTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID })
    expect(byProgram.value).toHaveLength(1)
    expect(AccountLayout.decode(byProgram.value[0]!.account.data).amount).toBe(3_000_000_001n)
    const mint = await connection.getParsedAccountInfo(pusd)
    expect(mint.value?.data).toMatchObject({
      program: 'spl-token',
      parsed: { type: 'mint', info: { decimals: PUSD_DECIMALS } },
    })
  })

  it('answers batches, unknown methods and bad params like a node', async () => {
    const post = (body: unknown) =>
      fetch(cluster.rpc.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json())
    const batch = await post([
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 'b', method: 'getBalance', params: [cluster.keys.solver.publicKey.toBase58()] },
      { jsonrpc: '2.0', id: 3, method: 'noSuchMethod' },
    ])
    expect(batch.map((r: { id: unknown }) => r.id)).toEqual([1, 'b', 3])
    expect(typeof batch[0].result).toBe('number')
    expect(batch[1].result).toMatchObject({ context: { slot: expect.any(Number) }, value: expect.any(Number) })
    expect(batch[2].error.code).toBe(-32601)
    expect((await post({ jsonrpc: '2.0', id: 4, method: 'nope' })).error).toEqual({
      code: -32601,
      message: 'Method not found',
    })
    expect((await post({ jsonrpc: '2.0', id: 5, method: 'getBalance', params: ['not-a-key'] })).error.code).toBe(-32602)
    expect((await post({ jsonrpc: '2.0', id: 6, method: 'getBalance' })).error.code).toBe(-32602)
    const parse = await fetch(cluster.rpc.rpcUrl, { method: 'POST', body: '{' }).then((r) => r.json())
    expect(parse.error.code).toBe(-32700)
  })

  it('reports the genesis hash the registry CAIP-2 id is cut from', async () => {
    const hash = await connection.getGenesisHash()
    expect(`solana:${hash.slice(0, 32)}`).toBe(networks['local-solana']!.caip2)
    expect(hash.length).toBeGreaterThanOrEqual(43)
  })

  it('notifies slot and account subscribers', async () => {
    const slot = new Promise<number>((resolve) => {
      const id = connection.onSlotChange((info) => {
        void connection.removeSlotChangeListener(id)
        resolve(info.slot)
      })
    })
    const owner = Keypair.generate().publicKey
    const ata = getAssociatedTokenAddressSync(pusd, owner)
    const changed = new Promise<bigint>((resolve) => {
      const id = connection.onAccountChange(ata, (info) => {
        void connection.removeAccountChangeListener(id)
        resolve(AccountLayout.decode(info.data).amount)
      })
    })
    // Give the subscriptions time to reach the server, then make things happen.
    await new Promise((r) => setTimeout(r, 200))
    const before = cluster.svm.tick()
    cluster.svm.advanceSlots(1)
    expect(await slot).toBeGreaterThan(before)
    await faucet({
      svm: cluster.svm,
      mintAuthority: cluster.keys.mintAuthority,
      mints: cluster.mints,
      to: owner,
      symbol: TOKEN_A,
      amount: '2',
    })
    expect(await changed).toBe(units(2n))
  })

  it('notifies signature subscribers, before and after the transaction lands', async () => {
    const payer = await fundedKeypair()
    const tx = await signedSolTransfer(payer)
    const signature = bs58.encode(tx.signatures[0]!)
    const early = new Promise<unknown>((resolve) =>
      connection.onSignature(signature, (result) => resolve(result.err), 'confirmed'),
    )
    await new Promise((r) => setTimeout(r, 200))
    await connection.sendRawTransaction(tx.serialize())
    expect(await early).toBeNull()
    const late = new Promise<unknown>((resolve) =>
      connection.onSignature(signature, (result) => resolve(result.err), 'confirmed'),
    )
    expect(await late).toBeNull()
  })
})
