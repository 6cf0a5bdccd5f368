import { createSolanaRpc } from '@solana/kit'
import { Keypair, LAMPORTS_PER_SOL, SYSVAR_CLOCK_PUBKEY } from '@solana/web3.js'
import { afterAll, describe, expect, it } from 'vitest'
import { startTestCluster, type TestCluster, tempDir } from './testing.js'

const dir = tempDir()
afterAll(() => dir.remove())

type RpcReply = { result?: any; error?: { code: number; message: string } }
const call = (c: TestCluster, method: string, params: unknown[]): Promise<RpcReply> =>
  fetch(c.rpc.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json() as Promise<RpcReply>)

const wall = () => Date.now() / 1000

/** What a client reads as the cluster's time: the block time of the current slot, and the Clock sysvar. */
async function expectWallTime(c: TestCluster) {
  const slot = await c.connection.getSlot()
  const blockTime = await c.connection.getBlockTime(slot)
  expect(Math.abs(blockTime! - wall())).toBeLessThan(2)
  const kit = await createSolanaRpc(c.rpc.rpcUrl).getBlockTime(BigInt(slot)).send()
  expect(Number(kit)).toBe(blockTime)
  const clock = await c.connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY)
  expect(Math.abs(Number(clock!.data.readBigInt64LE(32)) - wall())).toBeLessThan(2)
}

describe('the embedded cluster keeps wall time', () => {
  it('at start, in a landed transaction, after a restart; getBlockTime answers like a node', async () => {
    const file = `${dir.dir}/parx.db`
    const first = await startTestCluster(file)
    let second: TestCluster | undefined
    try {
      await expectWallTime(first)
      const signature = await first.connection.requestAirdrop(Keypair.generate().publicKey, LAMPORTS_PER_SOL)
      const landed = await first.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
      expect(Math.abs(landed!.blockTime! - wall())).toBeLessThan(2)
      expect(await first.connection.getBlockTime(landed!.slot)).toBe(landed!.blockTime)

      const slot = await first.connection.getSlot()
      expect(await call(first, 'getBlockTime', [slot + 1000])).toMatchObject({
        error: { code: -32004, message: `Block not available for slot ${slot + 1000}` },
      })
      expect((await call(first, 'getBlockTime', [5])).error).toMatchObject({ code: -32001 })
      expect((await call(first, 'getBlockTime', ['x'])).error).toMatchObject({ code: -32602 })
      await first.stop()

      await new Promise((r) => setTimeout(r, 1500))
      second = await startTestCluster(file, { keys: first.keys })
      await expectWallTime(second)
      expect(await second.connection.getBlockTime(landed!.slot)).toBe(landed!.blockTime)
    } finally {
      await (second ?? first).stop()
    }
  })
})
