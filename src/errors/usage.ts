import { BaseError } from './base.js'

/**
 * An error in what the user typed or configured (a flag, a PARX_* variable, a config value, a
 * path): the CLI exits with the usage code, so scripts can tell it from a failure of the service.
 */
export class UsageError extends BaseError {
  override name = 'ParxUsageError'
}
