/**
 * Port: how settle passes are shared and throttled. This process's version lets concurrent
 * requests share the pass that runs and starts a background pass at most every second; replicas
 * may each run theirs (a pass only records verdicts the chain already gave, first one sticks).
 */
export type SettlePasses = {
  /** Joins the running pass, or starts `run` as the new one. */
  share(run: () => Promise<void>): Promise<void>
  /** True when a background pass may start now (and counts it as started). */
  backgroundDue(now: number): boolean
}

// Housekeeping only (the reservation check never depends on it): how often a build may start a pass.
const BACKGROUND_EVERY_MS = 1000

export function processSettlePasses(): SettlePasses {
  let running: Promise<void> | undefined
  let lastBackground = 0
  return {
    share(run) {
      return (running ??= run().finally(() => (running = undefined)))
    },
    backgroundDue(now) {
      if (now - lastBackground < BACKGROUND_EVERY_MS) return false
      lastBackground = now
      return true
    },
  }
}
