import { BaseError } from '../../src/errors/base.js'
import { SolanaTxError } from './tx-error.js'

/** JSON-RPC error codes: the standard ones and the Solana node's own. */
export const RpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  BLOCK_CLEANED_UP: -32001,
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: -32003,
  BLOCK_NOT_AVAILABLE: -32004,
  UNSUPPORTED_TRANSACTION_VERSION: -32015,
  MIN_CONTEXT_SLOT_NOT_REACHED: -32016,
  /** Ours, in the server-error range: the per-client airdrop ration is spent. */
  AIRDROP_RATE_LIMITED: -32029,
} as const

/**
 * An error a JSON-RPC response carries: `{ code, message, data? }`. In parx's one family its code is
 * CHAIN_RPC_ERROR; the JSON-RPC code is `rpcCode`, and `toWire()` is the JSON-RPC wire error.
 */
export class RpcError extends BaseError {
  override name = 'RpcError'
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly data?: unknown,
  ) {
    super('CHAIN_RPC_ERROR', message)
  }

  /** The JSON-RPC error object RPC clients read (BaseError's toJSON is parx's `{ error, code }`). */
  toWire(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data }
  }
}

export const invalidParams = (message: string) => new RpcError(RpcCode.INVALID_PARAMS, message)

/**
 * Any failure as the error a Solana node would answer; unexpected ones become a bare internal
 * error (the client never sees a stack).
 */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e
  if (e instanceof SolanaTxError) {
    if (e.reason === 'malformed') return invalidParams(e.message)
    if (e.reason === 'signature') return new RpcError(RpcCode.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE, e.message)
    return new RpcError(RpcCode.SEND_TRANSACTION_PREFLIGHT_FAILURE, `Transaction simulation failed: ${e.message}`, {
      accounts: null,
      err: e.err,
      innerInstructions: null,
      logs: e.logs,
      replacementBlockhash: null,
      returnData: null,
      unitsConsumed: e.unitsConsumed,
    })
  }
  return new RpcError(RpcCode.INTERNAL_ERROR, 'Internal error')
}
