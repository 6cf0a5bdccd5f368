import type { Address, Hex, TransactionReceipt } from 'viem'
import { BATCH_BASE_GAS, failedGroups, type Group, groupGas } from '../../../src/sdk/x402/evm/executor.js'

/** One payment's fate in a mined batch. */
export type GroupOutcome = { tx: Hex; ok: boolean; revert?: Hex; batchReverted?: boolean }

export type SendBatch = (groups: Group[]) => Promise<{ hash: Hex; receipt: TransactionReceipt }>

/** Largest batch: well under the 2^24 per-transaction gas cap at GROUP_GAS a group. */
export const MAX_GROUPS = 64
/** Gas a batch may ask for: under the 2^24 per-transaction cap, whatever its groups declare (wallet deployments). */
export const MAX_BATCH_GAS = 15_000_000n

/**
 * Group commit for settlements. A payment arriving while no batch is in flight goes out at once,
 * alone; payments arriving while one is in flight wait and leave together in the next. Light load
 * therefore pays no batching delay and heavy load shares transactions, one nonce per batch, so
 * concurrent settlements never contend for the signer's nonce.
 */
export function settlementBatcher(p: {
  account: Address
  send: SendBatch
  maxGroups?: number
  maxGas?: bigint
  onBatch?: (size: number) => void
}) {
  const max = p.maxGroups ?? MAX_GROUPS
  const maxGas = p.maxGas ?? MAX_BATCH_GAS
  /** The next batch: up to `max` groups whose gas fits (the first always goes, alone if need be). */
  const next = () => {
    let gas = BATCH_BASE_GAS
    let n = 0
    while (n < queue.length && n < max) {
      const g = groupGas(queue[n]!.group)
      if (n > 0 && gas + g > maxGas) break
      gas += g
      n++
    }
    return queue.splice(0, n)
  }
  const queue: Array<{ group: Group; resolve(o: GroupOutcome): void; reject(e: unknown): void }> = []
  let busy = false

  async function pump(): Promise<void> {
    if (busy) return
    busy = true
    try {
      while (queue.length > 0) {
        const items = next()
        p.onBatch?.(items.length)
        try {
          const { hash, receipt } = await p.send(items.map((i) => i.group))
          if (receipt.status !== 'success') {
            for (const it of items) it.resolve({ tx: hash, ok: false, batchReverted: true })
            continue
          }
          const failed = failedGroups(receipt.logs, p.account)
          items.forEach((it, i) => it.resolve({ tx: hash, ok: !failed.has(i), revert: failed.get(i) }))
        } catch (e) {
          for (const it of items) it.reject(e)
        }
      }
    } finally {
      busy = false
    }
  }

  return {
    submit(group: Group): Promise<GroupOutcome> {
      return new Promise<GroupOutcome>((resolve, reject) => {
        queue.push({ group, resolve, reject })
        void pump()
      })
    },
  }
}
