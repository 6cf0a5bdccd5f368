// No zod here: the CLI checks --since/--until with it while `parx --help` stays free of zod.

/**
 * A moment as epoch ms, from an ISO date (2026-11-01: midnight UTC) or time (2026-11-01T12:00:00Z);
 * a time without a zone is UTC, never the server's local time. NaN when it is neither.
 */
export function parseMoment(v: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?)?$/.exec(v)
  if (!m) return NaN
  return Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${m[3] ?? 'Z'}`)
}
