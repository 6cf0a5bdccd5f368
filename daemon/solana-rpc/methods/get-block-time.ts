import { z } from 'zod'
import { producedSlot } from './block-range.js'
import { defineMethod, positional } from './define.js'

/** The unix time (seconds) of a produced block: the cluster's clock at that slot, which is wall time. */
export const getBlockTime = defineMethod({
  method: 'getBlockTime',
  params: positional(z.number().int().nonnegative()),
  handler: ([slot], ctx) => ctx.svm.clock.unixTimestamp(producedSlot(ctx, slot)),
})
