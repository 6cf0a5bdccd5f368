import { VersionedTransaction } from '@solana/web3.js'
import { z } from 'zod'
import { defineMethod, positional, pubkey } from './define.js'

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111'
// ComputeBudgetInstruction::SetComputeUnitPrice: discriminator 3, u64 micro-lamports per CU.
const SET_COMPUTE_UNIT_PRICE = 3
// What a node keeps in its prioritization-fee cache, and how many accounts it takes.
const CACHED_SLOTS = 150
const MAX_ACCOUNTS = 128

function unitPrice(tx: VersionedTransaction): number {
  const keys = tx.message.staticAccountKeys
  for (const ix of tx.message.compiledInstructions) {
    if (
      keys[ix.programIdIndex]?.toBase58() !== COMPUTE_BUDGET ||
      ix.data[0] !== SET_COMPUTE_UNIT_PRICE ||
      ix.data.length < 9
    )
      continue
    return Number(Buffer.from(ix.data).readBigUInt64LE(1))
  }
  return 0
}

/**
 * Per recent slot, the lowest compute-unit price paid by a transaction in it (among those that
 * write-lock one of `accounts`, when given), from the recorded history; 0 for a slot with none,
 * which on this cluster is most of them: nothing competes for block space.
 */
export const getRecentPrioritizationFees = defineMethod({
  method: 'getRecentPrioritizationFees',
  params: positional(z.array(pubkey).max(MAX_ACCOUNTS).optional()),
  handler: ([accounts], ctx) => {
    const current = ctx.svm.tick()
    const from = Math.max(ctx.svm.clock.firstSlot(), current - CACHED_SLOTS + 1)
    const wanted = accounts?.length ? new Set(accounts) : undefined
    const lowest = new Map<number, number>()
    for (const record of ctx.svm.txs.inSlots(from, current)) {
      const tx = VersionedTransaction.deserialize(record.raw)
      const keys = tx.message.staticAccountKeys.map((k) => k.toBase58())
      if (wanted && !keys.some((k, i) => wanted.has(k) && tx.message.isAccountWritable(i))) continue
      const price = unitPrice(tx)
      lowest.set(record.slot, Math.min(lowest.get(record.slot) ?? price, price))
    }
    const out: { slot: number; prioritizationFee: number }[] = []
    for (let slot = from; slot <= current; slot++) out.push({ slot, prioritizationFee: lowest.get(slot) ?? 0 })
    return out
  },
})
