import { z } from 'zod'
import { contextConfig, contextSlot, defineMethod, positional, withContext } from './define.js'

export const isBlockhashValid = defineMethod({
  method: 'isBlockhashValid',
  params: positional(z.string(), contextConfig.optional()),
  handler: ([blockhash, config], ctx) =>
    withContext(contextSlot(ctx, config), ctx.svm.clock.isBlockhashValid(blockhash)),
})
