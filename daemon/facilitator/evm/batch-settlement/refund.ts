import { type Hex, isAddressEqual } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { type ChannelConfig, refundTypedData } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { ExecCall } from '../../../../src/sdk/x402/evm/executor.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { channelState, settlementCall, snapshot } from './chain.js'
import { send, simulated } from './checks.js'
import { claimCall } from './claim.js'
import { optionalSignature, parseClaims, parseConfig, parseVoucher, uint } from './parse.js'
import { checkVoucher } from './voucher.js'

/**
 * A cooperative refund as the seller completed it: its outstanding claims first (so what was
 * charged is never refunded), then `refundWithSignature` for the channel's current refund nonce,
 * in one executor group. Signatures the seller did not send are ours when the channel delegates
 * to this facilitator's authorizer. Verify judges the payer's zero-charge voucher.
 */
export async function checkRefund(
  rt: EvmRuntime,
  p: Resolved,
  purpose: Purpose,
  authorizer: PrivateKeyAccount | undefined,
): Promise<Checked> {
  const voucherOk = await checkVoucher(rt, p, { refund: true })
  if (!voucherOk.ok || purpose === 'verify') return voucherOk
  const config = parseConfig(p.payload.channelConfig)!
  const voucher = parseVoucher(p.payload.voucher)!
  const payer = config.payer
  const nonce = uint(p.payload.refundNonce)
  const claims =
    p.payload.claims === undefined || (Array.isArray(p.payload.claims) && p.payload.claims.length === 0)
      ? []
      : parseClaims(p.payload.claims)
  if (nonce === undefined || !claims)
    return {
      ok: false,
      payer,
      reason: reasons.batchRefundPayload,
      message: 'a refund to settle carries refundNonce and claims (possibly empty)',
    }
  let refundSig = optionalSignature(p.payload.refundAuthorizerSignature)
  if (!refundSig) {
    const refused = await delegationRefused(p, config, authorizer)
    if (refused) return { ok: false, payer, ...refused }
  }
  const state = await channelState(rt, voucher.channelId)
  if (nonce !== state.refundNonce)
    return {
      ok: false,
      payer,
      reason: reasons.batchRefundPayload,
      message: `refundNonce ${nonce} is not the channel's current ${state.refundNonce}`,
    }
  const claimedAfter = claims.reduce((m, c) => (c.totalClaimed > m ? c.totalClaimed : m), state.totalClaimed)
  const available = state.balance > claimedAfter ? state.balance - claimedAfter : 0n
  const asked = p.payload.amount === undefined ? available : uint(p.payload.amount)
  if (asked === undefined || (p.payload.amount !== undefined && asked === 0n))
    return { ok: false, payer, reason: reasons.batchRefundAmountInvalid, message: 'amount must be a positive integer' }
  if (available === 0n)
    return { ok: false, payer, reason: reasons.batchRefundNoBalance, message: 'nothing unclaimed is left to refund' }
  const amount = asked > available ? available : asked

  if (!refundSig) {
    refundSig = await authorizer!.signTypedData(refundTypedData(p.spec.chainId!, voucher.channelId, nonce, amount))
  }
  const group: ExecCall[] = []
  if (claims.length > 0) {
    const call = await claimCall(p, claims, optionalSignature(p.payload.claimAuthorizerSignature), authorizer)
    if ('reason' in call) return { ok: false, payer, ...call }
    group.push(call)
  }
  group.push(settlementCall('refundWithSignature', [config, amount, nonce, refundSig], 20_000n))
  await rt.ready()
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group)
    if (refused)
      return {
        ok: false,
        payer,
        reason: reasons.batchRefundSimulationFailed,
        message: `the refund would revert: ${refused}`,
      }
  }
  return {
    ok: true,
    payer,
    async execute() {
      const out = await send(rt, group, reasons.batchRefundTransactionFailed)
      if (!out.ok) return out
      const after = await channelState(rt, voucher.channelId)
      const refunded = state.balance > after.balance ? state.balance - after.balance : 0n
      return {
        ...out,
        answer: { amount: refunded.toString(), extra: { channelState: snapshot(voucher.channelId, after) } },
      }
    },
  }
}

/**
 * Whether this facilitator may sign a refund for the channel's seller. A refund returns escrow the
 * seller may not have claimed yet, so our signature is given only to the seller itself: the
 * settle request carries a partner key bound to the channel's receiver (`parx keys create
 * --owner <receiver>`, sent as x-api-key; the official HTTPFacilitatorClient's createAuthHeaders).
 * Anyone else, the payer included, is refused before anything is read or sent.
 */
async function delegationRefused(
  p: Resolved,
  config: ChannelConfig,
  authorizer: PrivateKeyAccount | undefined,
): Promise<Failure | undefined> {
  if (!authorizer)
    return {
      reason: reasons.batchAuthorizerNotConfigured,
      message:
        'no refundAuthorizerSignature, and this facilitator offers no receiver authorizer to sign for the seller',
    }
  if (!isAddressEqual(config.receiverAuthorizer, authorizer.address)) {
    return {
      reason: reasons.batchAuthorizerAddressMismatch,
      message:
        `no refundAuthorizerSignature, and the channel's receiver authorizer ` +
        `${config.receiverAuthorizer} is not this facilitator's ${authorizer.address}`,
    }
  }
  const wallet = await p.caller?.wallet()
  if (!wallet || !isAddressEqual(wallet as Hex, config.receiver)) {
    return {
      reason: reasons.batchAuthorizerAddressMismatch,
      message:
        `a refund this facilitator signs must be asked by the channel's receiver ${config.receiver}: ` +
        `send a partner key bound to it in x-api-key${wallet ? ` (this key is bound to ${wallet})` : ''}`,
    }
  }
  return undefined
}
