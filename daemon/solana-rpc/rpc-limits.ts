import { RpcCode, RpcError } from './rpc-error.js'

/**
 * What one client may ask of the embedded cluster, which shares the daemon's event loop: every
 * input is bounded by its real size before it is decoded, so no request costs more than
 * milliseconds, and airdrops (which run the VM) are rationed per client.
 */
export const rpcLimits = {
  /** A Solana node's own limit (agave MAX_REQUEST_BODY_SIZE): a batch of ~30 transactions. */
  maxBodyBytes: 50 * 1024,
  maxBatch: 100,
  /** Airdrops: a burst, then a steady rate, per client address. */
  airdropBurst: 50,
  airdropsPerSecond: 10,
} as const

export const tooLargeBatch = () =>
  new RpcError(RpcCode.INVALID_REQUEST, `Invalid request: a batch holds at most ${rpcLimits.maxBatch} requests`)

/** A token bucket per client; idle buckets are dropped so memory stays bounded. */
export function airdropRation(
  opts: { burst: number; perSecond: number; now?: () => number } = {
    burst: rpcLimits.airdropBurst,
    perSecond: rpcLimits.airdropsPerSecond,
  },
) {
  const now = opts.now ?? Date.now
  const buckets = new Map<string, { tokens: number; at: number }>()
  return {
    /** Throws the JSON-RPC error a rate-limited devnet faucet answers when `client` has none left. */
    take(client: string): void {
      const t = now()
      const b = buckets.get(client) ?? { tokens: opts.burst, at: t }
      b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.perSecond)
      b.at = t
      buckets.set(client, b)
      if (b.tokens < 1) {
        throw new RpcError(
          RpcCode.AIRDROP_RATE_LIMITED,
          `airdrop request failed: rate limit reached (${opts.perSecond} per second per client); retry shortly`,
        )
      }
      b.tokens -= 1
      if (buckets.size > 10_000) for (const [k, v] of buckets) if (t - v.at > 60_000) buckets.delete(k)
    },
  }
}

export type AirdropRation = ReturnType<typeof airdropRation>
