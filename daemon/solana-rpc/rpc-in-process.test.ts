import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpcLimits } from './rpc-limits.js'
import { frozenClock, startTestCluster, type TestCluster, tempDir } from './testing.js'

let cluster: TestCluster
const dir = tempDir()

beforeAll(async () => {
  cluster = await startTestCluster(`${dir.dir}/parx.db`, { clock: frozenClock() })
})
afterAll(async () => {
  await cluster.stop()
  dir.remove()
})

describe('the embedded RPC answered in process (SolanaRpcServer.fetch)', () => {
  it('serves a web3.js Connection without its socket, the same cluster the HTTP clients see', async () => {
    // Nothing listens on port 9: every answer below comes through `fetch`.
    const inProcess = new Connection('http://127.0.0.1:9', {
      commitment: 'confirmed',
      fetch: cluster.rpc.fetch,
      wsEndpoint: cluster.rpc.wsUrl,
    })
    const payer = Keypair.generate()
    const airdrop = await inProcess.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL)
    expect(await cluster.connection.getBalance(payer.publicKey)).toBe(2 * LAMPORTS_PER_SOL)

    const { blockhash, lastValidBlockHeight } = await inProcess.getLatestBlockhash()
    const tx = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: LAMPORTS_PER_SOL,
      }),
    )
    tx.sign(payer)
    const signature = await inProcess.sendRawTransaction(tx.serialize())
    const { value } = await inProcess.confirmTransaction({ signature, blockhash, lastValidBlockHeight })
    expect(value.err).toBeNull()
    expect(
      (await cluster.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.slot,
    ).toBeGreaterThan(0)
    expect((await inProcess.getSignatureStatuses([airdrop, signature])).value.map((s) => s?.err)).toEqual([null, null])
  })

  it('keeps the HTTP limits and fails like a closed socket once stopped', async () => {
    const call = (body: string) => cluster.rpc.fetch(cluster.rpc.rpcUrl, { method: 'POST', body })
    const large = await call(' '.repeat(rpcLimits.maxBodyBytes + 1))
    expect(large.status).toBe(413)
    const bad = await call('{')
    expect(JSON.parse(await bad.text()).error.code).toBe(-32700)

    const other = await startTestCluster(`${dir.dir}/other.db`, { clock: frozenClock() })
    await other.stop()
    await expect(
      other.rpc.fetch(other.rpc.rpcUrl, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"getSlot"}' }),
    ).rejects.toThrow(/fetch failed/)
  })
})
