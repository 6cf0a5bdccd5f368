import { isBaseError } from '../../src/errors/index.js'

/**
 * An operation's outcome as a label: `ok`, or the error code it failed with (codes are one
 * published list, src/errors/codes.ts, so the label stays bounded), or `error` for anything else.
 */
export const outcomeOf = (e: unknown): string => (isBaseError(e) ? e.code : 'error')

/** Runs `fn`, telling `record` how it ended (`ok` or its error's code), and returns or throws as it did. */
export async function withOutcome<T>(record: (outcome: string) => void, fn: () => Promise<T>): Promise<T> {
  try {
    const r = await fn()
    record('ok')
    return r
  } catch (e) {
    record(outcomeOf(e))
    throw e
  }
}
