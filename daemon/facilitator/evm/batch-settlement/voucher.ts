import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { channelState, snapshot } from './chain.js'
import { channelTerms, voucherSigned } from './checks.js'
import { parseConfig, parseVoucher } from './parse.js'

/**
 * A voucher-only payment: a signature check and one state read, no transaction. Sellers commit it
 * themselves; a `/settle` of one answers success with an empty transaction (nothing to send) and
 * the channel snapshot. `refund`: the zero-charge voucher of a refund, which may equal the claimed total.
 */
export async function checkVoucher(rt: EvmRuntime, p: Resolved, o: { refund?: boolean } = {}): Promise<Checked> {
  const config = parseConfig(p.payload.channelConfig)
  const voucher = parseVoucher(p.payload.voucher)
  if (!config || !voucher)
    return {
      ok: false,
      reason: o.refund ? reasons.batchRefundPayload : reasons.batchVoucherPayload,
      message: 'the payload needs channelConfig and voucher {channelId, maxClaimableAmount, signature}',
    }
  const payer = config.payer
  const terms = channelTerms(p, config, voucher, o)
  if (terms) return { ok: false, ...terms }
  if (!(await voucherSigned(rt, p.spec.chainId!, config, voucher))) {
    return {
      ok: false,
      payer,
      reason: reasons.batchVoucherSignature,
      message: "the voucher is not signed by the channel's payer authorizer",
    }
  }
  let state
  try {
    state = await channelState(rt, voucher.channelId)
  } catch (e) {
    return {
      ok: false,
      payer,
      reason: reasons.batchRpcReadFailed,
      message: `the channel could not be read: ${(e as Error).message}`,
    }
  }
  const max = voucher.maxClaimableAmount
  if (state.balance === 0n)
    return {
      ok: false,
      payer,
      reason: reasons.batchChannelNotFound,
      message: `channel ${voucher.channelId} has no balance`,
    }
  if (o.refund ? max < state.totalClaimed : max <= state.totalClaimed) {
    return {
      ok: false,
      payer,
      reason: reasons.batchCumulativeBelowClaimed,
      message: `the voucher's ${max} is not above the ${state.totalClaimed} already claimed`,
    }
  }
  if (max > state.balance)
    return {
      ok: false,
      payer,
      reason: reasons.batchCumulativeExceedsBalance,
      message: `the voucher's ${max} exceeds the channel's balance ${state.balance}`,
    }
  const extra = snapshot(voucher.channelId, state)
  return {
    ok: true,
    payer,
    extra,
    execute: async () => ({ ok: true, tx: '', answer: { amount: '', extra: { channelState: extra } } }),
  }
}
