import { z } from 'zod'
import { commitment, contextSlot, defineMethod, positional, pubkey, signature } from './define.js'

const config = z.object({
  limit: z.number().int().min(1).max(1000).optional(),
  before: signature.optional(),
  until: signature.optional(),
  commitment: commitment.optional(),
  minContextSlot: z.number().int().nonnegative().optional(),
})

export const getSignaturesForAddress = defineMethod({
  method: 'getSignaturesForAddress',
  params: positional(pubkey, config.optional()),
  handler: ([address, cfg], ctx) => {
    contextSlot(ctx, cfg)
    return ctx.svm.txs
      .forAddress(address, { limit: cfg?.limit ?? 1000, before: cfg?.before, until: cfg?.until })
      .map((tx) => ({ ...tx, memo: null, confirmationStatus: 'finalized' }))
  },
})
