import { z } from 'zod'
import { encodeAccount } from '../account-json.js'
import { accountConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

// A node's default cap on keys per request.
const MAX_MULTIPLE_ACCOUNTS = 100

export const getMultipleAccounts = defineMethod({
  method: 'getMultipleAccounts',
  params: positional(z.array(pubkey).max(MAX_MULTIPLE_ACCOUNTS), accountConfig.optional()),
  handler: ([addresses, config], ctx) => {
    const slot = contextSlot(ctx, config)
    const getAccount = (a: string) => ctx.svm.getAccount(a)
    return withContext(
      slot,
      addresses.map((address) => {
        const state = getAccount(address)
        return state ? encodeAccount(state, { ...config, getAccount }) : null
      }),
    )
  },
})
