import { SLOTS_PER_EPOCH } from '../genesis.js'
import { contextConfig, contextSlot, defineMethod, positional } from './define.js'

export const getEpochInfo = defineMethod({
  method: 'getEpochInfo',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => {
    const slot = contextSlot(ctx, config)
    return {
      absoluteSlot: slot,
      blockHeight: ctx.svm.clock.blockHeight(slot),
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ctx.svm.txs.count(),
    }
  },
})
