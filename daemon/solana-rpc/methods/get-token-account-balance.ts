import { uiTokenAmount } from '../amounts.js'
import { invalidParams } from '../rpc-error.js'
import { decodeMint, decodeTokenAccount } from '../spl-token-state.js'
import { contextConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

export const getTokenAccountBalance = defineMethod({
  method: 'getTokenAccountBalance',
  params: positional(pubkey, contextConfig.optional()),
  handler: ([address, config], ctx) => {
    const slot = contextSlot(ctx, config)
    const token = decodeTokenAccount(ctx.svm.getAccount(address))
    const decimals = token && decodeMint(ctx.svm.getAccount(token.mint))?.decimals
    if (!token || decimals === undefined) throw invalidParams('Invalid param: could not find account')
    return withContext(slot, uiTokenAmount(token.amount, decimals))
  },
})
