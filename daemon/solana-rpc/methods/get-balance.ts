import { contextConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

export const getBalance = defineMethod({
  method: 'getBalance',
  params: positional(pubkey, contextConfig.optional()),
  handler: ([address, config], ctx) =>
    withContext(contextSlot(ctx, config), ctx.svm.getAccount(address)?.lamports ?? 0n),
})
