import bs58 from 'bs58'
import { z } from 'zod'
import { isBase58Of, solanaEncodedSize } from '../../../src/sdk/solana/encoded-size.js'
import { SOLANA_CORE_VERSION } from '../genesis.js'
import type { LocalSvm } from '../local-svm.js'
import { invalidParams, RpcCode, RpcError } from '../rpc-error.js'
import type { AirdropRation } from '../rpc-limits.js'

export type RpcContext = {
  svm: LocalSvm
  /**
   * What getGenesisHash answers; the local cluster's own when absent (`parx chains --as testnet` presents devnet's).
   */
  genesisHash?: string
  /** Told about failures that are our bugs (the client only sees "Internal error"). */
  onInternalError?: (error: unknown) => void
  /** The address of the client asking, for per-client limits. */
  client?: string
  airdrops?: AirdropRation
}

/** One JSON-RPC method: its name, the schema of its positional params, and its handler. */
export type RpcMethod<C = RpcContext> = {
  method: string
  params: z.ZodTypeAny
  handler: (params: never, ctx: C) => unknown
}

export function defineMethod<S extends z.ZodTypeAny, C = RpcContext>(m: {
  method: string
  params: S
  handler: (params: z.output<S>, ctx: C) => unknown
}): RpcMethod<C> {
  return m as RpcMethod<C>
}

/**
 * Positional params where trailing ones may be omitted or null, as Solana nodes accept
 * (`[pubkey]`, `[pubkey, null]` and `[pubkey, {…}]` all mean the same).
 */
export function positional<T extends [] | [z.ZodTypeAny, ...z.ZodTypeAny[]]>(...items: T) {
  return z.preprocess((v) => {
    if (v === undefined || v === null) v = []
    if (!Array.isArray(v)) return v
    const padded = [...v]
    while (padded.length < items.length) padded.push(undefined)
    return padded.map((x) => (x === null ? undefined : x))
  }, z.tuple(items))
}

// Bounded by length before decoding: bs58 is quadratic, so a long "pubkey" would stall the loop.
export const pubkey = z.string().refine((s) => isBase58Of(s, 32), 'Invalid param: Invalid')
export const signature = z.string().refine((s) => isBase58Of(s, 64), 'Invalid param: Invalid')

export const commitment = z.enum([
  'processed',
  'confirmed',
  'finalized',
  'recent',
  'single',
  'singleGossip',
  'root',
  'max',
])

export const contextConfig = z.object({
  commitment: commitment.optional(),
  minContextSlot: z.number().int().nonnegative().optional(),
})

export const encoding = z.enum(['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed'])
export const dataSlice = z.object({ offset: z.number().int().nonnegative(), length: z.number().int().nonnegative() })
export const accountConfig = contextConfig.extend({ encoding: encoding.optional(), dataSlice: dataSlice.optional() })

/** The slot a read answers at; refuses, like a node, when `minContextSlot` is still ahead. */
export function contextSlot(ctx: RpcContext, config?: { minContextSlot?: number }): number {
  const slot = ctx.svm.tick()
  if (config?.minContextSlot !== undefined && config.minContextSlot > slot) {
    throw new RpcError(RpcCode.MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', {
      contextSlot: slot,
    })
  }
  return slot
}

/** `{ context: { slot }, value }`, the envelope of most reads. */
export const withContext = <T>(slot: number, value: T) => ({
  context: { apiVersion: SOLANA_CORE_VERSION, slot },
  value,
})

export const binaryEncoding = z.enum(['base58', 'base64'])

/** Decodes a transaction or message sent as base58 (the node's default) or base64. */
export function decodeBinary(data: string, as: 'base58' | 'base64' = 'base58'): Uint8Array {
  const max = as === 'base64' ? solanaEncodedSize.transactionBase64 : solanaEncodedSize.transactionBase58
  if (data.length > max)
    throw invalidParams(`${as} encoded transaction too large: ${data.length} characters (max: ${as} ${max} characters)`)
  if (as === 'base64') {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw invalidParams(`invalid base64 encoding: ${data.slice(0, 16)}`)
    return new Uint8Array(Buffer.from(data, 'base64'))
  }
  try {
    return bs58.decode(data)
  } catch {
    throw invalidParams(`invalid base58 encoding: ${data.slice(0, 16)}`)
  }
}
