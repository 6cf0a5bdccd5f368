import { contextConfig, contextSlot, defineMethod, positional } from './define.js'

export const getSlot = defineMethod({
  method: 'getSlot',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => contextSlot(ctx, config),
})
