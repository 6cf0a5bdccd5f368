export { BaseError, badRequest, isBaseError } from './base.js'
export { errorCodes, type ErrorCode } from './codes.js'
export { UsageError } from './usage.js'
