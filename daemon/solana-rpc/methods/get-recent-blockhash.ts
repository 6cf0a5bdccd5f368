import { LAMPORTS_PER_SIGNATURE } from '../genesis.js'
import { contextConfig, contextSlot, defineMethod, positional, withContext } from './define.js'

/** Deprecated on real nodes but still used by old clients; same blockhash as getLatestBlockhash. */
export const getRecentBlockhash = defineMethod({
  method: 'getRecentBlockhash',
  params: positional(contextConfig.optional()),
  handler: ([config], ctx) => {
    const slot = contextSlot(ctx, config)
    const { blockhash } = ctx.svm.clock.latest()
    return withContext(slot, { blockhash, feeCalculator: { lamportsPerSignature: LAMPORTS_PER_SIGNATURE } })
  },
})
