/**
 * The ports: every piece of coordination that lives in one process today, each behind a small
 * interface that the composition root (daemon/main.ts) fills with this process's version. A
 * replica-safe version (through the store, or PostgreSQL advisory locks) replaces one by changing
 * what main.ts passes, not the code that uses it.
 *
 * | port | used by | this process's version |
 * |---|---|---|
 * | TxSender (nonces of one key on one chain) | swap surface, facilitator | `txSender` (chains/evm/tx-sender.ts) |
 * | InflightOrders (Base orders being relayed) | swap surface | `inflightOrders` (swap/inflight.ts); replicas: `storeInflightOrders` (swap/inflight-store.ts, rows of `swap_claims`) |
 * | KeyedLock (Solana inventory reservations) | sol surface | `processLock` (ports/lock.ts); replicas: `storeLock` (ports/store-lock.ts, PostgreSQL advisory locks) |
 * | SettlePasses (open Solana swaps settle passes) | sol surface | `processSettlePasses` (sol/settle-passes.ts) |
 * | RateLimiter (token buckets per client) | HTTP app | `rateLimiter` (http/middleware/rate-limit.ts) |
 * | VerdictCache (partner key verdicts, SPEC §5 times) | auth service | `verdictCache` (auth/verdict-cache.ts); replicas: the same with 5 s TTLs (`HOSTED_VERDICT_TTLS`) |
 * | VerifiedCache (payments just verified) | facilitator | `verifiedCache` (facilitator/verified-cache.ts) |
 *
 * What must happen once across processes is not a port but a unique constraint in the store (the
 * x402 settlement ledger's live index, the Solana swap signature, the Base order claim).
 */
export type { TxSender } from '../chains/evm/tx-sender.js'
export type { InflightOrders } from '../swap/inflight.js'
export type { KeyedLock } from './lock.js'
export type { SettlePasses } from '../sol/settle-passes.js'
export type { RateLimiter } from '../http/middleware/rate-limit.js'
export type { VerdictCache } from '../auth/verdict-cache.js'
export type { VerifiedCache } from '../facilitator/verified-cache.js'
