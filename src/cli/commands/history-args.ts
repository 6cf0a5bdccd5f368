import type { PaymentKind } from '../../sdk/platform/history.js'
import { parseMoment } from '../../sdk/platform/moment.js'
import { usageError } from '../errors.js'
import { agentArg } from './agent/show.js'
import { agentIdOf, type PlatformDeps, uuidArg } from './platform-shared.js'

/** The flags `parx payments` and `parx report` share. */
export type HistoryFilterOptions = { agent?: string; since?: string; until?: string; kind?: string; host?: string }

const KINDS = ['pay', 'send', 'swap'] as const

/**
 * `--since`/`--until` as the routes take them: an ISO date or time as given, or a span back from
 * now (`7d`, `24h`, `30m`) turned into the ISO time it names.
 */
export function timeArg(value: string, flag: string, now = Date.now()): string {
  const v = value.trim()
  const span = /^(\d{1,5})([dhm])$/.exec(v)
  if (span)
    return new Date(
      now - Number(span[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[span[2] as 'd' | 'h' | 'm'],
    ).toISOString()
  if (!Number.isNaN(parseMoment(v))) return v
  throw usageError(
    `${flag} '${value}' is not a date (2026-11-01), a time ` +
      `(2026-11-01T12:00:00Z) or a span back from now (7d, 24h, 30m)`,
  )
}

/** The query both routes take, from the shared flags (each checked before any request). */
export function historyQuery(o: HistoryFilterOptions): {
  since?: string
  until?: string
  kind?: PaymentKind
  host?: string
} {
  const q: { since?: string; until?: string; kind?: PaymentKind; host?: string } = {}
  if (o.since !== undefined) q.since = timeArg(o.since, '--since')
  if (o.until !== undefined) q.until = timeArg(o.until, '--until')
  if (o.kind !== undefined) {
    const k = o.kind.trim().toLowerCase()
    if (!(KINDS as readonly string[]).includes(k))
      throw usageError(`--kind '${o.kind}' is not one of ${KINDS.join(', ')}`)
    q.kind = k as PaymentKind
  }
  if (o.host !== undefined) {
    const h = o.host.trim().toLowerCase()
    if (!/^[a-z0-9.:\-[\]]{1,253}$/.test(h))
      throw usageError(`--host '${o.host}' is not a host name such as api.example.com (no scheme, path or port)`)
    q.host = h
  }
  return q
}

/**
 * Whose history: `--agent <id>` (a user key reads any of its agents; an agent key only itself),
 * else the logged-in agent (PARX_AGENT_ID, the stored id, or the key's own agent).
 */
export async function historyAgent(
  o: HistoryFilterOptions,
  deps: Pick<PlatformDeps, 'session' | 'platform'>,
): Promise<string> {
  if (o.agent !== undefined) return uuidArg(o.agent, '--agent')
  if (deps.session.agentKey) return agentIdOf(deps)
  return agentArg(undefined, deps, '--agent')
}
