import { z } from 'zod'
import { binaryEncoding, commitment, contextSlot, decodeBinary, defineMethod, positional } from './define.js'

const config = z.object({
  skipPreflight: z.boolean().optional(),
  preflightCommitment: commitment.optional(),
  encoding: binaryEncoding.optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  minContextSlot: z.number().int().nonnegative().optional(),
})

/**
 * Executes a signed transaction and answers its signature once it is persisted. Unlike a node,
 * a transaction that cannot land (expired blockhash, bad signature) is refused here even with
 * `skipPreflight`, instead of being dropped silently while the client waits for it.
 */
export const sendTransaction = defineMethod({
  method: 'sendTransaction',
  params: positional(z.string(), config.optional()),
  handler: ([data, cfg], ctx) => {
    contextSlot(ctx, cfg)
    return ctx.svm.submit(decodeBinary(data, cfg?.encoding), { skipPreflight: cfg?.skipPreflight ?? false })
  },
})
