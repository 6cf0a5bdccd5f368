import { z } from 'zod'
import { contextConfig, defineMethod, positional, pubkey } from './define.js'

// Enough for any local test; keeps every balance far from u64 overflow.
const MAX_AIRDROP_LAMPORTS = 10n ** 18n

export const requestAirdrop = defineMethod({
  method: 'requestAirdrop',
  params: positional(
    pubkey,
    z
      .union([z.number().int().positive(), z.bigint().positive()])
      .transform(BigInt)
      .refine((v) => v <= MAX_AIRDROP_LAMPORTS, `Invalid params: at most ${MAX_AIRDROP_LAMPORTS} lamports per airdrop`),
    contextConfig.optional(),
  ),
  handler: ([address, lamports], ctx) => {
    ctx.airdrops?.take(ctx.client ?? 'unknown')
    return ctx.svm.airdrop(address, lamports)
  },
})
