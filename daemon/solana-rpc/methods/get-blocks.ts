import { z } from 'zod'
import { invalidParams } from '../rpc-error.js'
import type { RpcContext } from './define.js'
import { commitment, defineMethod, positional } from './define.js'

// A node refuses wider ranges.
const MAX_RANGE = 500_000
const slot = z.number().int().nonnegative()
const commitmentConfig = z.object({ commitment: commitment.optional() })

/** Produced slots in `start`..`end`: every slot from genesis up to now (the cluster never skips one). */
function produced(ctx: RpcContext, start: number, end: number): number[] {
  const from = Math.max(start, ctx.svm.clock.firstSlot())
  const to = Math.min(end, ctx.svm.tick())
  const out: number[] = []
  for (let s = from; s <= to; s++) out.push(s)
  return out
}

export const getBlocks = defineMethod({
  method: 'getBlocks',
  params: positional(slot, z.union([slot, commitmentConfig]).optional(), commitmentConfig.optional()),
  handler: ([start, end], ctx) => {
    const last = typeof end === 'number' ? end : ctx.svm.tick()
    if (last - start > MAX_RANGE) throw invalidParams(`Slot range too large; max ${MAX_RANGE}`)
    return produced(ctx, start, last)
  },
})

export const getBlocksWithLimit = defineMethod({
  method: 'getBlocksWithLimit',
  params: positional(slot, z.number().int().nonnegative(), commitmentConfig.optional()),
  handler: ([start, limit], ctx) => {
    if (limit > MAX_RANGE) throw invalidParams(`Limit too large; max ${MAX_RANGE}`)
    const from = Math.max(start, ctx.svm.clock.firstSlot())
    return limit === 0 ? [] : produced(ctx, from, from + limit - 1)
  },
})
