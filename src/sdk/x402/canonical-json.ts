/**
 * JSON with object keys sorted at every depth: one text per value, whatever order the client
 * wrote. What a payment's fingerprint is hashed from, at the facilitator (payment identifiers)
 * and at the seller gate (kept answers).
 */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(v) ?? 'null'
}
