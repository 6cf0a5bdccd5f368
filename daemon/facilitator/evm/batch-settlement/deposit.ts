import { encodeAbiParameters, type Hex, isAddressEqual, keccak256, recoverTypedDataAddress } from 'viem'
import { receiveWithAuthorizationTypes } from '../../../../src/sdk/eip712.js'
import { nowSeconds } from '../../../../src/sdk/x402/evm/authorization.js'
import {
  type ChannelConfig,
  channelIdOf,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import { isRecord } from '../../../../src/sdk/x402/wire.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { channelState, settlementCall, snapshot, tokenBalance } from './chain.js'
import { channelTerms, send, simulated, voucherSigned } from './checks.js'
import { type Permit2Deposit, parsePermit2Deposit, permit2CollectorData } from './deposit-permit2.js'
import { parseConfig, parseVoucher, type SignedVoucher, uint } from './parse.js'

type Erc3009 = { kind: 'erc3009'; validAfter: bigint; validBefore: bigint; salt: bigint; signature: Hex; nonce: Hex }
export type Deposit = {
  config: ChannelConfig
  voucher: SignedVoucher
  amount: bigint
  auth: Erc3009 | ({ kind: 'permit2' } & Permit2Deposit)
  replayKey: string
}

/** Reads a `deposit` payload: exactly one of an ERC-3009 or a Permit2 authorization (spec, "Deposit Payload"). */
export function parseDeposit(p: Resolved): Deposit | Failure {
  const bad = (message: string): Failure => ({ reason: reasons.batchDepositPayload, message })
  const config = parseConfig(p.payload.channelConfig)
  const voucher = parseVoucher(p.payload.voucher)
  const d = p.payload.deposit
  if (!config || !voucher || !isRecord(d) || !isRecord(d.authorization))
    return bad('a deposit payload has channelConfig, voucher and deposit {amount, authorization}')
  const amount = uint(d.amount)
  if (amount === undefined || amount === 0n || amount >= 2n ** 128n)
    return bad('deposit.amount must be a positive integer below 2^128')
  const a = d.authorization.erc3009Authorization
  const p2 = d.authorization.permit2Authorization
  if (isRecord(a) && p2 !== undefined)
    return bad('deposit.authorization carries exactly one of erc3009Authorization and permit2Authorization')
  if (p2 !== undefined || p.requirements.extra.assetTransferMethod === 'permit2') {
    const permit2 = parsePermit2Deposit(p2)
    if (!permit2)
      return {
        reason: reasons.batchPermit2AuthorizationRequired,
        message:
          'deposit.authorization.permit2Authorization needs from, permitted {token, ' +
          'amount}, spender, nonce, deadline, witness {channelId} and signature',
        payer: config.payer,
      }
    // Permit2 nonces are the owner's, used once: the ledger's replay key.
    return {
      config,
      voucher,
      amount,
      auth: { kind: 'permit2', ...permit2 },
      replayKey: `permit2:${config.payer.toLowerCase()}:${permit2.nonce}`,
    }
  }
  if (!isRecord(a))
    return {
      reason: reasons.batchErc3009Required,
      message: 'deposit.authorization.erc3009Authorization is missing',
      payer: config.payer,
    }
  const validAfter = uint(a.validAfter),
    validBefore = uint(a.validBefore),
    salt = uint(a.salt)
  const signature =
    typeof a.signature === 'string' && /^0x[0-9a-fA-F]+$/.test(a.signature) ? (a.signature as Hex) : undefined
  if (validAfter === undefined || validBefore === undefined || salt === undefined || !signature)
    return bad('erc3009Authorization needs validAfter, validBefore, salt and signature')
  const nonce = keccak256(
    encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [channelIdOf(config, p.spec.chainId!), salt]),
  )
  return {
    config,
    voucher,
    amount,
    auth: { kind: 'erc3009', validAfter, validBefore, salt, signature, nonce },
    replayKey: `${config.payer.toLowerCase()}:${nonce}`,
  }
}

/** The ERC-3009 path: checks the payer's `receiveWithAuthorization` to the collector; answers the collector's data. */
async function erc3009CollectorData(
  rt: EvmRuntime,
  p: Resolved,
  d: Deposit & { auth: Erc3009 },
  now: bigint,
): Promise<Hex | Failure> {
  const { config, amount, auth } = d
  const payer = config.payer
  if (auth.validAfter > now)
    return {
      reason: reasons.batchValidAfter,
      message: `the deposit authorization is valid only after ${auth.validAfter}`,
      payer,
    }
  if (auth.validBefore <= now + 6n)
    return {
      reason: reasons.batchValidBefore,
      message: `the deposit authorization expired at ${auth.validBefore}`,
      payer,
    }
  const { name, version } = p.requirements.extra
  if (typeof name !== 'string' || typeof version !== 'string')
    return {
      reason: reasons.batchMissingEip712Domain,
      message: "the requirements' extra.name and extra.version (the token's EIP-712 domain) are missing",
      payer,
    }
  const typed = {
    domain: { name, version, chainId: p.spec.chainId!, verifyingContract: config.token },
    types: receiveWithAuthorizationTypes,
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: payer,
      to: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
      value: amount,
      validAfter: auth.validAfter,
      validBefore: auth.validBefore,
      nonce: auth.nonce,
    },
  } as const
  const signer = await recoverTypedDataAddress({ ...typed, signature: auth.signature }).catch(() => undefined)
  // Not the payer's key: a smart-wallet payer's (ERC-1271), which the token asks the wallet about.
  const signed =
    (signer && isAddressEqual(signer, payer)) ||
    (await rt.chain.client.verifyTypedData({ address: payer, ...typed, signature: auth.signature }).catch(() => false))
  if (!signed)
    return {
      reason: reasons.batchReceiveAuthorizationSignature,
      message: 'the ERC-3009 deposit authorization is not signed by the payer for this channel',
      payer,
    }
  return encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
    [auth.validAfter, auth.validBefore, auth.salt, auth.signature],
  )
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
  const { config, voucher, amount } = d
  const payer = config.payer
  const fail = (reason: Failure['reason'], message: string): Checked => ({ ok: false, reason, message, payer })
  const terms = channelTerms(p, config, voucher)
  if (terms) return { ok: false, ...terms }
  const now = nowSeconds()
  const chainId = p.spec.chainId!
  const collector = d.auth.kind === 'permit2' ? PERMIT2_DEPOSIT_COLLECTOR_ADDRESS : ERC3009_DEPOSIT_COLLECTOR_ADDRESS
  const collectorData =
    d.auth.kind === 'permit2'
      ? await permit2CollectorData(rt, p, d.auth, payer, amount, voucher.channelId, now)
      : await erc3009CollectorData(rt, p, d as Deposit & { auth: Erc3009 }, now)
  if (typeof collectorData !== 'string') return { ok: false, ...collectorData }
  if (!(await voucherSigned(rt, chainId, config, voucher)))
    return fail(reasons.batchVoucherSignature, "the voucher is not signed by the channel's payer authorizer")

  await rt.ready()
  const [state, held] = await Promise.all([channelState(rt, voucher.channelId), tokenBalance(rt, config.token, payer)])
  if (held < amount)
    return fail(reasons.batchInsufficientBalance, `the payer holds ${held}, less than the ${amount} deposit`)
  if (voucher.maxClaimableAmount > state.balance + amount)
    return fail(
      reasons.batchCumulativeExceedsBalance,
      `the voucher's ${voucher.maxClaimableAmount} exceeds the ` +
        `channel's balance after the deposit (${state.balance + amount})`,
    )
  if (voucher.maxClaimableAmount < state.totalClaimed)
    return fail(
      reasons.batchCumulativeBelowClaimed,
      `the voucher's ${voucher.maxClaimableAmount} is below the ${state.totalClaimed} already claimed`,
    )

  // Permit2 with a sponsored EIP-2612 permit costs more than an ERC-3009 deposit (~+50k).
  const group = [
    settlementCall(
      'deposit',
      [config, amount, collector, collectorData],
      d.auth.kind === 'permit2' ? 120_000n : 60_000n,
    ),
  ]
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group)
    if (refused) return fail(reasons.batchDepositSimulationFailed, `the deposit would revert: ${refused}`)
  }
  return {
    ok: true,
    payer,
    extra: snapshot(voucher.channelId, state),
    async execute() {
      const out = await send(rt, group, reasons.batchDepositTransactionFailed)
      if (!out.ok) return out
      const after = await channelState(rt, voucher.channelId)
      return {
        ...out,
        answer: { amount: amount.toString(), extra: { channelState: snapshot(voucher.channelId, after) } },
      }
    },
  }
}
