import { keccak256, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { BATCH_SETTLEMENT, channelIdOf } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { PaymentMethod, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { checkClaim } from './claim.js'
import { checkDeposit, parseDeposit } from './deposit.js'
import { parseConfig, uint } from './parse.js'
import { checkRefund } from './refund.js'
import { checkSettle } from './settle.js'
import { checkVoucher } from './voucher.js'

const TYPES = ['deposit', 'voucher', 'refund', 'claim', 'settle'] as const

/**
 * The x402 `batch-settlement` scheme on EVM (payment channels): one method, dispatched on
 * `payload.type`. Replay keys: a deposit is its ERC-3009 authorization and a refund its channel's
 * refund nonce, so each is settled at most once through the same ledger and outbox as `exact`;
 * vouchers, claims and settles are idempotent on chain (cumulative totals), so each request gets
 * a fresh key and is simply recorded.
 */
export function batchSettlementMethod(
  runtimeOf: (network: string) => EvmRuntime,
  receiverAuthorizer: () => PrivateKeyAccount | undefined,
): PaymentMethod {
  const type = (p: Resolved) =>
    (TYPES as readonly string[]).includes(String(p.payload.type))
      ? (p.payload.type as (typeof TYPES)[number])
      : undefined
  return {
    name: BATCH_SETTLEMENT,
    scheme: BATCH_SETTLEMENT,
    family: 'evm',
    matches: (p) => p.scheme === BATCH_SETTLEMENT,
    key(p) {
      const t = type(p)
      if (!t) return { reason: reasons.batchPayloadType, message: `payload.type must be one of ${TYPES.join(', ')}` }
      const net = p.spec.caip2
      if (t === 'deposit') {
        const d = parseDeposit(p)
        return 'reason' in d ? d : `${BATCH_SETTLEMENT}:${net}:deposit:${d.replayKey}`
      }
      if (t === 'refund') {
        const config = parseConfig(p.payload.channelConfig)
        const nonce = uint(p.payload.refundNonce)
        if (!config || nonce === undefined)
          return {
            reason: reasons.batchRefundPayload,
            message: 'a refund to settle carries channelConfig and refundNonce',
          }
        return `${BATCH_SETTLEMENT}:${net}:refund:${channelIdOf(config, p.spec.chainId!)}:${nonce}`
      }
      const unique = keccak256(toHex(`${Date.now()}:${Math.random()}:${JSON.stringify(p.payload)}`))
      return `${BATCH_SETTLEMENT}:${net}:${t}:${unique}`
    },
    async check(p, purpose) {
      const t = type(p)
      if (!t)
        return {
          ok: false,
          reason: reasons.batchPayloadType,
          message: `payload.type must be one of ${TYPES.join(', ')}`,
        }
      const rt = runtimeOf(p.spec.key)
      const authorizer = receiverAuthorizer()
      if (t === 'deposit') return checkDeposit(rt, p, purpose)
      if (t === 'voucher') return checkVoucher(rt, p)
      if (t === 'refund') return checkRefund(rt, p, purpose, authorizer)
      // Claims and settles are the seller's batched operations, never a buyer's payment to verify.
      if (purpose === 'verify')
        return { ok: false, reason: reasons.batchPayloadType, message: `a ${t} payload is settled, not verified` }
      return t === 'claim' ? checkClaim(rt, p, purpose, authorizer) : checkSettle(rt, p, purpose)
    },
  }
}
