import { encodeAbiParameters, encodeEventTopics, type Hex, type Log, type TransactionReceipt } from 'viem'
import { describe, expect, it } from 'vitest'
import * as X402BatchExecutor from '../../../contracts/evm/artifacts/X402BatchExecutor.js'
import type { Group } from '../../../src/sdk/x402/evm/executor.js'
import { settlementBatcher } from './batcher.js'

const account = '0x00000000000000000000000000000000000000f1'
const group = (n: number): Group => [{ target: account, data: `0x${n.toString(16).padStart(2, '0')}` }]

/** A receipt whose executor events report `failed` group indexes, as a mined batch's would. */
function receipt(failed: number[]): TransactionReceipt {
  const logs = failed.map((index) => ({
    address: account,
    topics: encodeEventTopics({ abi: X402BatchExecutor.abi, eventName: 'GroupFailed', args: { index: BigInt(index) } }),
    data: encodeAbiParameters([{ type: 'bytes' }], ['0xdead']),
  })) as unknown as Log[]
  return { status: 'success', logs } as unknown as TransactionReceipt
}

describe('settlementBatcher (group commit)', () => {
  it('sends a lone payment at once and batches those that arrive while a batch is in flight', async () => {
    const batches: number[] = []
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const b = settlementBatcher({
      account,
      send: async (groups) => {
        batches.push(groups.length)
        if (batches.length === 1) await gate
        return { hash: `0x${String(batches.length).padStart(64, '0')}` as Hex, receipt: receipt([]) }
      },
    })
    const first = b.submit(group(1))
    const rest = [2, 3, 4].map((n) => b.submit(group(n)))
    release()
    const outcomes = await Promise.all([first, ...rest])
    expect(batches).toEqual([1, 3])
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true, true])
    expect(new Set(outcomes.slice(1).map((o) => o.tx)).size).toBe(1)
  })

  it('fails only the groups the executor reported as failed', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let calls = 0
    const b = settlementBatcher({
      account,
      send: async (groups) => {
        if (calls++ === 0) await gate
        return { hash: '0x01', receipt: receipt(groups.length === 3 ? [1] : []) }
      },
    })
    const first = b.submit(group(0))
    const batch = [1, 2, 3].map((n) => b.submit(group(n)))
    release()
    await first
    const out = await Promise.all(batch)
    expect(out.map((o) => o.ok)).toEqual([true, false, true])
    expect(out[1]!.revert).toBe('0xdead')
  })

  it('rejects every payment of a batch the node refused, and keeps going after it', async () => {
    let n = 0
    const b = settlementBatcher({
      account,
      send: async () => {
        if (n++ === 0) throw new Error('refused')
        return { hash: '0x02', receipt: receipt([]) }
      },
    })
    await expect(b.submit(group(1))).rejects.toThrow('refused')
    expect((await b.submit(group(2))).ok).toBe(true)
  })

  it('splits a queue so no batch asks for more gas than allowed (groups that deploy a wallet declare more)', async () => {
    const sizes: number[] = []
    const b = settlementBatcher({
      account,
      maxGas: 1_000_000n,
      send: async (groups) => (sizes.push(groups.length), { hash: '0x04', receipt: receipt([]) }),
    })
    // 60k base + 160k a group: 5 plain groups fit in 1M; one declaring 500k more leaves room for 1 more.
    const heavy: Group = [{ target: account, data: '0x01', gas: 500_000n }]
    await Promise.all(
      [group(1), heavy, group(2), group(3), group(4), group(5), group(6), group(7)].map((g) => b.submit(g)),
    )
    expect(sizes).toEqual([1, 2, 5])
  })

  it('splits a long queue into batches of at most maxGroups', async () => {
    const sizes: number[] = []
    const b = settlementBatcher({
      account,
      maxGroups: 2,
      send: async (groups) => (sizes.push(groups.length), { hash: '0x03', receipt: receipt([]) }),
    })
    await Promise.all([1, 2, 3, 4, 5].map((n) => b.submit(group(n))))
    expect(sizes).toEqual([1, 2, 2])
  })
})
