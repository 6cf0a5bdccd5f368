import { BaseError } from '../../src/errors/index.js'

/** The code a synchronous call throws (a BaseError's code, else the message), or undefined when it does not throw. */
export function errorCodeOf(f: () => unknown): string | undefined {
  try {
    f()
  } catch (e) {
    return e instanceof BaseError ? e.code : String(e)
  }
  return undefined
}
