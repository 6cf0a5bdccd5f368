import { z } from 'zod'

/** GET /api/manifest: one document an agent reads to learn what the platform offers. */
export const manifest = z.object({
  name: z.literal('parx'),
  version: z.string(),
  profile: z.enum(['local', 'testnet', 'mainnet']),
  /** Networks agents may be created on in this deployment, with their tokens. */
  networks: z.array(
    z.object({
      key: z.string(),
      chainId: z.number().int(),
      caip2: z.string(),
      sendMethod: z.enum(['userOperation', 'transfer']),
      tokens: z.array(z.object({ symbol: z.string(), decimals: z.number().int(), address: z.string().nullable() })),
      swapPairs: z.array(z.tuple([z.string(), z.string()])),
    }),
  ),
  payments: z.object({ protocols: z.array(z.enum(['x402-v2', 'x402-v1', 'mpp'])), facilitator: z.string() }),
  limits: z.object({
    currency: z.literal('USD'),
    /** The rules a LIMIT_EXCEEDED names in its `limit` field. */
    kinds: z.array(z.enum(['perPayment', 'hour', 'day', 'week', 'month', 'allowedHosts'])),
    /** Seconds of the rolling day window (`dailyUsd`). */
    windowSeconds: z.number().int(),
    /** Seconds of each rolling window (a month is 30 days). */
    windows: z.object({
      hour: z.number().int(),
      day: z.number().int(),
      week: z.number().int(),
      month: z.number().int(),
    }),
    /** Whose budgets apply: the agent's own, and its user's across all its agents. */
    scopes: z.array(z.enum(['agent', 'user'])),
    countedBy: z.array(z.enum(['pay', 'send', 'swap'])),
  }),
  auth: z.object({ userKeyHeader: z.string(), agentKeyHeader: z.string() }),
  /**
   * Who signs payment receipts: pin `signer` and check a receipt offline against it (`parx receipt
   * verify --signer`, docs/platform-api.md "Receipts"). `signer` is null where the deployment has no
   * receipt key (its pays carry no signed receipt).
   */
  receipts: z.object({
    signer: z.string().nullable(),
    domain: z.object({ name: z.string(), version: z.string() }),
    primaryType: z.literal('Receipt'),
  }),
  /** The routes an agent key may call. */
  routes: z.array(z.object({ method: z.string(), path: z.string(), summary: z.string() })),
})
export type Manifest = z.infer<typeof manifest>
