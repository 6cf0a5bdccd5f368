import { z } from 'zod'
import { SLOTS_PER_EPOCH } from '../genesis.js'
import { commitment, contextConfig, contextSlot, defineMethod, positional } from './define.js'

/** The oldest block the node has: genesis (the embedded cluster keeps its whole history). */
export const getFirstAvailableBlock = defineMethod({
  method: 'getFirstAvailableBlock',
  params: positional(),
  handler: (_params, ctx) => ctx.svm.clock.firstSlot(),
})

export const minimumLedgerSlot = defineMethod({
  method: 'minimumLedgerSlot',
  params: positional(),
  handler: (_params, ctx) => ctx.svm.clock.firstSlot(),
})

/** Transactions processed since genesis (landed, failed ones included), as the node counts them. */
export const getTransactionCount = defineMethod({
  method: 'getTransactionCount',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => {
    contextSlot(ctx, config)
    return ctx.svm.txs.count()
  },
})

export const getEpochSchedule = defineMethod({
  method: 'getEpochSchedule',
  params: positional(z.object({ commitment: commitment.optional() }).optional()),
  handler: () => ({
    slotsPerEpoch: SLOTS_PER_EPOCH,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    warmup: false,
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
  }),
})
