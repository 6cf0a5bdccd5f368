import { BaseError } from '../../src/errors/index.js'
import type { AgentRow } from '../platform/store.js'

/**
 * An owner's freeze stops an agent spending at once, on every replica. It is a column of the
 * agent's row (620), read by `refuseFrozen` inside the transaction that locks that row to reserve
 * a spend (daemon/buyer/spends.ts, channels/store.ts): a spend racing a freeze either finished
 * reserving first (and follows its course: it may already be signed) or is refused, and nothing
 * per process is cached to go stale, so no replica can honour a frozen agent, however briefly.
 * Reservation comes before every signature, so a refused spend signed nothing.
 */
export function refuseFrozen(agent: Pick<AgentRow, 'id' | 'frozen_at'>): void {
  if (agent.frozen_at === null || agent.frozen_at === undefined) return
  const at = new Date(Number(agent.frozen_at)).toISOString()
  throw new BaseError(
    'AGENT_FROZEN',
    `agent ${agent.id} is frozen by its owner since ${at}; nothing was signed or spent`,
    {
      details:
        'Only the owning user can unfreeze it (`parx agent unfreeze ' +
        '<id>`, or the dashboard where the deployment requires it).',
      fields: { frozenAt: at },
    },
  )
}

/** The freeze as routes show it. */
export const freezeView = (a: Pick<AgentRow, 'frozen_at'>) => ({
  frozen: a.frozen_at !== null,
  frozenAt: a.frozen_at === null ? null : new Date(Number(a.frozen_at)).toISOString(),
})
