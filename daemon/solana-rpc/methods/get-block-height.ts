import { contextConfig, contextSlot, defineMethod, positional } from './define.js'

export const getBlockHeight = defineMethod({
  method: 'getBlockHeight',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => ctx.svm.clock.blockHeight(contextSlot(ctx, config)),
})
