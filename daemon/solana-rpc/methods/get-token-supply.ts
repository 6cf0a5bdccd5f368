import { uiTokenAmount } from '../amounts.js'
import { invalidParams } from '../rpc-error.js'
import { decodeMint } from '../spl-token-state.js'
import { contextConfig, contextSlot, defineMethod, positional, pubkey, withContext } from './define.js'

export const getTokenSupply = defineMethod({
  method: 'getTokenSupply',
  params: positional(pubkey, contextConfig.optional()),
  handler: ([address, config], ctx) => {
    const slot = contextSlot(ctx, config)
    const mint = decodeMint(ctx.svm.getAccount(address))
    if (!mint) throw invalidParams('Invalid param: could not find mint')
    return withContext(slot, uiTokenAmount(mint.supply, mint.decimals))
  },
})
