import { z } from 'zod'
import { defineMethod, positional, signature, withContext } from './define.js'

const MAX_SIGNATURES = 256

export const getSignatureStatuses = defineMethod({
  method: 'getSignatureStatuses',
  params: positional(
    z.array(signature).max(MAX_SIGNATURES),
    z.object({ searchTransactionHistory: z.boolean().optional() }).optional(),
  ),
  handler: ([signatures, config], ctx) => {
    const slot = ctx.svm.tick()
    return withContext(
      slot,
      signatures.map((sig) => ctx.svm.signatureStatus(sig, config?.searchTransactionHistory ?? false)),
    )
  },
})
