/**
 * Runs critical sections one at a time per key. This process's version serialises within the
 * process, which is all the embedded (single-process) daemon needs; a replica-safe version (a
 * PostgreSQL advisory lock, say) implements the same port.
 */
export type KeyedLock = {
  run<T>(key: string, fn: () => Promise<T>): Promise<T>
}

/** The in-process lock: a promise chain per key, dropped once its last holder finishes. */
export function processLock(): KeyedLock {
  const tails = new Map<string, Promise<unknown>>()
  return {
    run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const prev = tails.get(key) ?? Promise.resolve()
      const next = prev.then(fn, fn)
      const tail = next.catch(() => {})
      tails.set(key, tail)
      void tail.then(() => {
        if (tails.get(key) === tail) tails.delete(key)
      })
      return next
    },
  }
}
