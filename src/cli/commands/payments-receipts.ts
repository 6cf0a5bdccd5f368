import type { SignedReceipt } from '../../sdk/platform/receipts.js'
import type { CliContext } from '../context.js'
import { usageError } from '../errors.js'
import { type HistoryFilterOptions, historyAgent, historyQuery } from './history-args.js'
import { type PlatformDeps, spinning } from './platform-shared.js'

/** `parx payments`' options (./payments.ts re-exports them; they live here, the lower file of the two). */
export type PaymentsOptions = HistoryFilterOptions & {
  limit?: string
  cursor?: string
  page?: string
  receipts?: boolean
}

/** The most receipts one export reads (pages of 200): beyond it, narrow --since/--until or go on from --cursor. */
export const MAX_EXPORT = 20_000

/**
 * `parx payments --receipts`: the agent's signed receipts (GET /api/agents/:id/receipts), every
 * page from the newest (or from --cursor) within --since/--until, optionally only one --host.
 * Printed as JSON lines (one receipt a line, what `parx receipt verify -` reads), or one JSON
 * array with --output json. Only pays have receipts: --kind other than pay is refused.
 */
export async function exportReceipts(opts: PaymentsOptions, deps: PlatformDeps): Promise<SignedReceipt[]> {
  if (deps.ctx.output === 'csv')
    throw usageError(
      '--receipts prints JSON lines (or a JSON array with --output json); --output csv is for the payments table',
    )
  if (opts.page !== undefined)
    throw usageError('--receipts reads every page itself; start from --cursor instead of --page')
  if (opts.limit !== undefined)
    throw usageError(
      '--receipts exports every receipt in the window; narrow it with --since/--until instead of --limit',
    )
  const { since, until, kind, host } = historyQuery(opts)
  if (kind && kind !== 'pay') throw usageError(`--receipts: only pays have receipts (not --kind ${kind})`)
  const query: Record<string, string | undefined> = { since, until, limit: '200' }
  if (opts.cursor !== undefined) {
    if (!/^\d{1,15}_[0-9a-f-]{36}$/i.test(opts.cursor.trim()))
      throw usageError(`--cursor '${opts.cursor}' is not a cursor parx gave out (pass nextCursor as printed)`)
    query.cursor = opts.cursor.trim()
  }
  const id = await historyAgent(opts, deps)
  return spinning(deps, 'reading receipts', async () => {
    const out: SignedReceipt[] = []
    for (;;) {
      const page = await deps.platform.listReceipts({ params: { id }, query })
      out.push(...page.receipts.filter((r) => !host || r.message.host === host))
      if (!page.nextCursor) return out
      if (out.length >= MAX_EXPORT) {
        deps.ctx.stderr(`stopped after ${out.length} receipts; go on with --receipts --cursor ${page.nextCursor}`)
        return out
      }
      query.cursor = page.nextCursor
    }
  })
}

/** One receipt a line, each a complete JSON document. */
export const receiptLines = (rs: SignedReceipt[], _ctx: CliContext): string[] => rs.map((r) => JSON.stringify(r))
