import { z } from 'zod'
import { defineMethod, positional, signature, withContext } from './define.js'

// A node answers from its status cache (~300 slots) unless asked to search history.
const STATUS_CACHE_SLOTS = 300
const MAX_SIGNATURES = 256

export const getSignatureStatuses = defineMethod({
  method: 'getSignatureStatuses',
  params: positional(z.array(signature).max(MAX_SIGNATURES), z.object({ searchTransactionHistory: z.boolean().optional() }).optional()),
  handler: ([signatures, config], ctx) => {
    const slot = ctx.svm.tick()
    return withContext(slot, signatures.map((sig) => {
      const tx = ctx.svm.txs.summary(sig)
      if (!tx || (!config?.searchTransactionHistory && tx.slot < slot - STATUS_CACHE_SLOTS)) return null
      // One validator, no forks: a processed transaction is final at once.
      return {
        slot: tx.slot, confirmations: null, err: tx.err, status: tx.err === null ? { Ok: null } : { Err: tx.err },
        confirmationStatus: 'finalized',
      }
    }))
  },
})
