import { z } from 'zod'

/** One dependency's check: reached or not, in how long, and its head (block, slot) or its failure. */
export const readinessCheck = z.object({
  ok: z.boolean(),
  ms: z.number(),
  detail: z.union([z.string(), z.number()]).optional(),
})

/** What a `parx serve` process does (`--role`): api serves the API, worker runs the worker duties, all both. */
export const processRole = z.enum(['api', 'worker', 'all'])

/**
 * GET /api/readiness (503 when not ready, same body): the store and every chain, and what this
 * process is. `leader`: whether it runs the worker duties (reconciliation, sweeps, the cross-chain
 * solver) now; null for an api process, which never campaigns for them. `leadership` says why.
 */
export const readiness = z.object({
  ready: z.boolean(),
  /** A stop began: this process takes nothing new (answered with 503). */
  draining: z.literal(true).optional(),
  checks: z.record(readinessCheck),
  role: processRole,
  leader: z.boolean().nullable(),
  leadership: z.string(),
})

export type Readiness = z.infer<typeof readiness>
export type ReadinessCheck = z.infer<typeof readinessCheck>
export type ProcessRole = z.infer<typeof processRole>
