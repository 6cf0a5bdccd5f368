import { type Hex, isAddress, isAddressEqual, zeroAddress } from 'viem'
import { channelIdMemo } from '../../../../src/sdk/x402/evm/batch-settlement/channel-id.js'
import {
  type ChannelConfig,
  MAX_WITHDRAW_DELAY,
  MIN_WITHDRAW_DELAY,
  voucherTypedData,
} from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { voucherSignedBy } from '../../../../src/sdk/x402/evm/batch-settlement/voucher-signer.js'
import type { Group } from '../../../../src/sdk/x402/evm/executor.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Executed, Failure, Resolved } from '../../method.js'
import { executeGroup } from '../execute.js'
import type { EvmRuntime } from '../runtime.js'
import { revertName } from './chain.js'
import type { SignedVoucher } from './parse.js'

/**
 * The spec's verification rules 1-5 for a payload naming a channel: the config hashes to the
 * claimed id, and its token, receiver, receiver authorizer and withdraw delay are the seller's
 * terms. A deposit or voucher (a buyer paying) must come with requirements naming the receiver
 * authorizer, or a buyer could name itself and refund to itself what it spent; a refund (the
 * seller returning escrow: a channel manager's refund requirements carry an empty `extra`) is
 * held to it only where stated.
 */
export function channelTerms(
  p: Resolved,
  config: ChannelConfig,
  voucher: SignedVoucher,
  o: { refund?: boolean } = {},
): Failure | undefined {
  const payer = config.payer
  const id = channelIdMemo(config, p.spec.chainId!)
  if (id.toLowerCase() !== voucher.channelId)
    return {
      reason: reasons.batchChannelIdMismatch,
      message: `the channel config hashes to ${id}, not ${voucher.channelId}`,
      payer,
    }
  const r = p.requirements
  if (!isAddressEqual(config.token, r.asset as Hex))
    return {
      reason: reasons.batchTokenMismatch,
      message: `the channel's token ${config.token} is not the asset ${r.asset}`,
      payer,
    }
  if (!isAddressEqual(config.receiver, r.payTo as Hex))
    return {
      reason: reasons.batchReceiverMismatch,
      message: `the channel's receiver ${config.receiver} is not payTo ${r.payTo}`,
      payer,
    }
  const ra = r.extra.receiverAuthorizer
  if (!o.refund && (typeof ra !== 'string' || !isAddress(ra, { strict: false }))) {
    return {
      reason: reasons.invalidPaymentRequirements,
      message: 'batch-settlement requirements must name extra.receiverAuthorizer',
      payer,
    }
  }
  if (typeof ra === 'string' && !isAddressEqual(config.receiverAuthorizer, ra as Hex)) {
    return {
      reason: reasons.batchReceiverAuthorizerMismatch,
      message: `the channel's receiver authorizer ${config.receiverAuthorizer} is not ${ra}`,
      payer,
    }
  }
  const wd = r.extra.withdrawDelay
  if (wd !== undefined && Number(wd) !== config.withdrawDelay) {
    return {
      reason: reasons.batchWithdrawDelayMismatch,
      message: `the channel's withdraw delay ${config.withdrawDelay} s is not the ${String(wd)} s asked`,
      payer,
    }
  }
  if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) {
    return {
      reason: reasons.batchWithdrawDelayOutOfRange,
      message: `withdraw delay ${config.withdrawDelay} s is outside ${MIN_WITHDRAW_DELAY}..${MAX_WITHDRAW_DELAY} s`,
      payer,
    }
  }
  return undefined
}

/**
 * Rule 6: a payer authorizer's vouchers are plain ECDSA (no chain read); with none, the payer
 * itself signs and may be a smart wallet (ERC-1271 / ERC-6492 through the chain).
 */
export async function voucherSigned(
  rt: EvmRuntime,
  chainId: number,
  config: ChannelConfig,
  v: SignedVoucher,
): Promise<boolean> {
  if (!isAddressEqual(config.payerAuthorizer, zeroAddress)) {
    return voucherSignedBy(config.payerAuthorizer, chainId, v.channelId, v.maxClaimableAmount, v.signature)
  }
  const typed = voucherTypedData(chainId, v.channelId, v.maxClaimableAmount)
  return rt.chain.client.verifyTypedData({ address: config.payer, ...typed, signature: v.signature }).catch(() => false)
}

/**
 * Whether a group would go through now, from the executor account's point of view; the revert's error name when not.
 */
export async function simulated(rt: EvmRuntime, group: Group): Promise<string | undefined> {
  const r = await rt.simulate([group])
  return r.ok[0] ? undefined : revertName(r.data[0])
}

/** Sends a checked group through the executor (batched with other payments); a mined revert is `failed`. */
export function send(rt: EvmRuntime, group: Group, failed: Failure['reason']): Promise<Executed> {
  return executeGroup(
    rt,
    group,
    (revert) => ({ reason: failed as never, message: `the transaction reverted: ${revertName(revert)}` }),
    reasons.unexpectedSettleError,
  )
}
