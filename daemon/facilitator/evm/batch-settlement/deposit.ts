import { encodeAbiParameters, isAddressEqual, keccak256, recoverTypedDataAddress, type Hex } from 'viem'
import { ERC3009_DEPOSIT_COLLECTOR_ADDRESS, channelIdOf, type ChannelConfig } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { authorizationFields } from '../../../../src/sdk/eip712.js'
import { nowSeconds } from '../../../../src/sdk/x402/evm/authorization.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { channelState, settlementCall, snapshot, tokenBalance } from './chain.js'
import { channelTerms, send, simulated, voucherSigned } from './checks.js'
import { parseConfig, parseVoucher, uint, type SignedVoucher } from './parse.js'

type Erc3009 = { validAfter: bigint; validBefore: bigint; salt: bigint; signature: Hex }
export type Deposit = { config: ChannelConfig; voucher: SignedVoucher; amount: bigint; auth: Erc3009; nonce: Hex }

/** Reads a `deposit` payload; only the ERC-3009 authorization is settled here (Permit2 deposits: not yet). */
export function parseDeposit(p: Resolved): Deposit | Failure {
  const bad = (message: string): Failure => ({ reason: reasons.batchDepositPayload, message })
  const config = parseConfig(p.payload.channelConfig)
  const voucher = parseVoucher(p.payload.voucher)
  const d = p.payload.deposit
  if (!config || !voucher || !isRecord(d) || !isRecord(d.authorization)) return bad('a deposit payload has channelConfig, voucher and deposit {amount, authorization}')
  const amount = uint(d.amount)
  if (amount === undefined || amount === 0n || amount >= 2n ** 128n) return bad('deposit.amount must be a positive integer below 2^128')
  const a = d.authorization.erc3009Authorization
  if (!isRecord(a)) {
    const permit2 = isRecord(d.authorization.permit2Authorization)
    return { reason: permit2 ? reasons.unsupportedScheme : reasons.batchErc3009Required, message: permit2 ? 'Permit2 deposits are not settled by this facilitator yet; use the ERC-3009 authorization' : 'deposit.authorization.erc3009Authorization is missing', payer: config.payer }
  }
  const validAfter = uint(a.validAfter), validBefore = uint(a.validBefore), salt = uint(a.salt)
  const signature = typeof a.signature === 'string' && /^0x[0-9a-fA-F]+$/.test(a.signature) ? (a.signature as Hex) : undefined
  if (validAfter === undefined || validBefore === undefined || salt === undefined || !signature) return bad('erc3009Authorization needs validAfter, validBefore, salt and signature')
  const nonce = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [channelIdOf(config, p.spec.chainId!), salt]))
  return { config, voucher, amount, auth: { validAfter, validBefore, salt, signature }, nonce }
}

/**
 * A first deposit or a top-up, sponsored: the facilitator's executor calls `deposit` with the
 * payer's ERC-3009 authorization to the collector (the payer needs no ETH). The ledger's replay
 * key is that authorization, so a deposit answered is at most one deposit, and after a crash the
 * outbox replays the same transaction. Verify also judges the voucher that rides along.
 */
export async function checkDeposit(rt: EvmRuntime, p: Resolved, purpose: Purpose): Promise<Checked> {
  const d = parseDeposit(p)
  if ('reason' in d) return { ok: false, ...d }
  const { config, voucher, amount, auth } = d
  const payer = config.payer
  const fail = (reason: Failure['reason'], message: string): Checked => ({ ok: false, reason, message, payer })
  const terms = channelTerms(p, config, voucher)
  if (terms) return { ok: false, ...terms }
  const now = nowSeconds()
  if (auth.validAfter > now) return fail(reasons.batchValidAfter, `the deposit authorization is valid only after ${auth.validAfter}`)
  if (auth.validBefore <= now + 6n) return fail(reasons.batchValidBefore, `the deposit authorization expired at ${auth.validBefore}`)
  const { name, version } = p.requirements.extra
  if (typeof name !== 'string' || typeof version !== 'string') return fail(reasons.batchMissingEip712Domain, "the requirements' extra.name and extra.version (the token's EIP-712 domain) are missing")
  const chainId = p.spec.chainId!
  const signer = await recoverTypedDataAddress({
    domain: { name, version, chainId, verifyingContract: config.token }, types: { ReceiveWithAuthorization: authorizationFields }, primaryType: 'ReceiveWithAuthorization',
    message: { from: payer, to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, value: amount, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: d.nonce },
    signature: auth.signature,
  }).catch(() => undefined)
  if (!signer || !isAddressEqual(signer, payer)) return fail(reasons.batchReceiveAuthorizationSignature, 'the ERC-3009 deposit authorization is not signed by the payer for this channel')
  if (!(await voucherSigned(rt, chainId, config, voucher))) return fail(reasons.batchVoucherSignature, 'the voucher is not signed by the channel\'s payer authorizer')

  await rt.ready()
  const [state, held] = await Promise.all([channelState(rt, voucher.channelId), tokenBalance(rt, config.token, payer)])
  if (held < amount) return fail(reasons.batchInsufficientBalance, `the payer holds ${held}, less than the ${amount} deposit`)
  if (voucher.maxClaimableAmount > state.balance + amount) return fail(reasons.batchCumulativeExceedsBalance, `the voucher's ${voucher.maxClaimableAmount} exceeds the channel's balance after the deposit (${state.balance + amount})`)
  if (voucher.maxClaimableAmount < state.totalClaimed) return fail(reasons.batchCumulativeBelowClaimed, `the voucher's ${voucher.maxClaimableAmount} is below the ${state.totalClaimed} already claimed`)

  const collectorData = encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }], [auth.validAfter, auth.validBefore, auth.salt, auth.signature],
  )
  const group = [settlementCall('deposit', [config, amount, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, collectorData], 60_000n)]
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group)
    if (refused) return fail(reasons.batchDepositSimulationFailed, `the deposit would revert: ${refused}`)
  }
  return {
    ok: true, payer, extra: snapshot(voucher.channelId, state),
    async execute() {
      const out = await send(rt, group, reasons.batchDepositTransactionFailed)
      if (!out.ok) return out
      const after = await channelState(rt, voucher.channelId)
      return { ...out, answer: { amount: amount.toString(), extra: { channelState: snapshot(voucher.channelId, after) } } }
    },
  }
}
