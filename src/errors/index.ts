export { BaseError, badRequest, isBaseError } from './base.js'
export { type ErrorCode, errorCodes } from './codes.js'
export { UsageError } from './usage.js'
