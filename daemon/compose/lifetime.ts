import type { Logger } from 'pino'

export type Cleanup = () => unknown

/**
 * What the composed parts register for the daemon's one stop: `onStop` steps run last-registered
 * first (a part is stopped before what it was built on); `atStopFirst` steps run first and together
 * (the HTTP drain, the leadership hand-over: ../http/drain.ts).
 */
export type Lifetime = {
  onStop(fn: Cleanup): void
  atStopFirst(fn: () => Promise<unknown>): void
}

/** `last`: stopped after everything registered later (the log, then the data dir). The stop runs once. */
export function lifetime(log: Logger, last: Cleanup[]): { life: Lifetime; stop: () => Promise<void> } {
  const cleanups: Cleanup[] = [...last]
  const firstAtStop: Array<() => Promise<unknown>> = []
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(
        firstAtStop.map((fn) =>
          fn().catch((err) => log.warn({ err }, 'stopping: a first step failed; stopping the rest')),
        ),
      )
      for (const fn of cleanups.reverse()) await fn()
    })())
  return { life: { onStop: (fn) => void cleanups.push(fn), atStopFirst: (fn) => void firstAtStop.push(fn) }, stop }
}
