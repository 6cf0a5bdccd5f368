import type { ProcessRole, Readiness } from '../../src/sdk/discovery/readiness.js'

export type RoleDeps = {
  role: ProcessRole
  /** Whether this process leads the worker duties now; absent for an api process (it does not campaign). */
  leading?: () => boolean
  /** Processes share a PostgreSQL store: leadership is an advisory lock, not a given (daemon/worker/leader.ts). */
  hosted: boolean
}

/** This process' role and leadership, as /api/readiness and `parx status` show them. */
export function roleStatus(d: RoleDeps): Pick<Readiness, 'role' | 'leader' | 'leadership'> {
  if (d.role === 'api' || !d.leading) {
    return {
      role: d.role,
      leader: null,
      leadership: 'does not campaign: an api process never runs the worker duties (a --role worker process does)',
    }
  }
  const leader = d.leading()
  // On SQLite there is one process per data dir: it leads, as it always has.
  if (!d.hosted)
    return { role: d.role, leader, leadership: 'leads the worker duties: the only process on this data dir' }
  return {
    role: d.role,
    leader,
    leadership: leader
      ? 'leads the worker duties: holds the PostgreSQL advisory lock'
      : 'standing by: another process holds the worker lock; this one takes over within a second of its release',
  }
}
