/**
 * Chain reads shared by concurrent requests: one RPC round trip serves everyone for `ttlMs`, and
 * `invalidate()` (called after the daemon itself sends a transaction) makes the next read live.
 */
export function freshCache(ttlMs: number, now: () => number = Date.now) {
  const entries = new Map<string, { at: number; value: Promise<unknown> }>()
  return {
    get<T>(key: string, load: () => Promise<T>): Promise<T> {
      const hit = entries.get(key)
      if (hit && now() - hit.at < ttlMs) return hit.value as Promise<T>
      const value = load()
      entries.set(key, { at: now(), value })
      // A failed read must not be served to the next caller.
      value.catch(() => entries.get(key)?.value === value && entries.delete(key))
      return value
    },
    invalidate() {
      entries.clear()
    },
  }
}

export type FreshCache = ReturnType<typeof freshCache>
