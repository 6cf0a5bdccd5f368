import { encodeAccount } from '../account-json.js'
import { accountConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

export const getAccountInfo = defineMethod({
  method: 'getAccountInfo',
  params: positional(pubkey, accountConfig.optional()),
  handler: ([address, config], ctx) => {
    const slot = contextSlot(ctx, config)
    const state = ctx.svm.getAccount(address)
    const getAccount = (a: string) => ctx.svm.getAccount(a)
    return withContext(slot, state ? encodeAccount(state, { ...config, getAccount }) : null)
  },
})
