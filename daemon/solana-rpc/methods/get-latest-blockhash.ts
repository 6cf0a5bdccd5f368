import { contextConfig, contextSlot, defineMethod, positional, withContext } from './define.js'

export const getLatestBlockhash = defineMethod({
  method: 'getLatestBlockhash',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => {
    const slot = contextSlot(ctx, config)
    const { blockhash, lastValidBlockHeight } = ctx.svm.clock.latest()
    return withContext(slot, { blockhash, lastValidBlockHeight })
  },
})
