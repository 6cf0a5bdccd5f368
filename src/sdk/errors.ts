/**
 * The SDK's error family as a package entry (`parx/errors`): every error a parx client throws is a
 * `BaseError` with a code from `errorCodes`; a service's refusal is an `ApiError` (its HTTP status
 * and body beside the code). The package's entries share one copy of these classes, so `instanceof`
 * holds whichever entry threw.
 */
export { BaseError } from '../errors/base.js'
export { type ErrorCode, errorCodes } from '../errors/codes.js'
export { ApiError, UnreachableError } from './http-errors.js'
