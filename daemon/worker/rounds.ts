import type { Logger } from 'pino'

/**
 * A leader duty's loop: `round` every `everyMs`, one round at a time (a slow round delays the next
 * rather than overlapping it); a failed round is logged as `what` and the next one retries. The
 * answer stops the loop and waits for the round under way, so a hand-over never cuts one in half.
 */
export function roundEvery(
  round: () => Promise<unknown>,
  everyMs: number,
  log: Logger,
  what: string,
): () => Promise<void> {
  let stopped = false
  let running: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    running = running
      .then(() => (stopped ? undefined : round()))
      .catch((err) => log.warn({ err }, `${what} failed; the next round retries`))
  }, everyMs)
  timer.unref()
  return async () => {
    stopped = true
    clearInterval(timer)
    await running
  }
}
