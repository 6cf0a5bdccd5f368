import type { PaymentStatus, TransactionStatus } from '../../src/sdk/x402/status.js'
import type { SettleResponse, SupportedResponse, VerifyResponse } from '../../src/sdk/x402/types.js'
import type { Payment } from '../../src/sdk/x402/wire.js'
import type { ReplayResult } from '../chains/evm/outbox-replay.js'

/** What the facilitator surface offers (./service.ts builds it; ./public-answers.ts wraps it). */
export type Facilitator = {
  supported(): SupportedResponse
  verify(p: Payment): Promise<VerifyResponse>
  settle(p: Payment): Promise<SettleResponse>
  /** Prepares every served network (executor delegation) in the background; failures are retried on use. */
  warmUp(): Promise<void>
  /**
   * A worker duty (the leader runs it): decides pending settlements from the chain. `leftByEarlierRun`:
   * the rows a previous run of this process left (the embedded, single-process case); `idleForMs`:
   * rows untouched that long, which no live replica is still settling (the hosted case).
   */
  reconcile(select: { leftByEarlierRun?: boolean; idleForMs?: number; replayed?: ReplayResult }): Promise<void>
  /**
   * Where a payment stands, by its payment-identifier (within one seller's payTo when given); NOT_FOUND when no settle
   * was asked for it.
   */
  statusOf(paymentId: string, payTo?: string): Promise<PaymentStatus>
  /** Every payment a transaction settles (a batch settles many); NOT_FOUND when none. */
  statusOfTransaction(transaction: string): Promise<TransactionStatus>
  /** Ends the background followers of pending settlements (daemon stop). */
  stop(): Promise<void>
}
