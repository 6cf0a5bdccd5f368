import { type Address, erc20Abi, type Hex, hashTypedData, isAddressEqual, keccak256, zeroAddress } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { receiveWithAuthorizationTypes } from '../../../../src/sdk/eip712.js'
import { authorizerTypedData } from '../../../../src/sdk/x402/evm/auth-capture/authorizer.js'
import {
  boundSalt,
  type PaymentInfo,
  paymentInfoHash,
  signatureNonce,
} from '../../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import { nowSeconds } from '../../../../src/sdk/x402/evm/authorization.js'
import { PERMIT2_ADDRESS } from '../../../../src/sdk/x402/evm/permit2.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { checkPayerSignature } from '../signature.js'
import { escrowCall, send, simulated } from './chain.js'
import { consented } from './consent.js'
import { type CollectPayload, parseAddress, parseCollect, paymentInfoWire, signature, uint } from './parse.js'
import { readTerms, relaysLifecycle, type Terms } from './terms.js'

/** Seconds a deadline must lie ahead of now (the binding's 6 s floor): the capture margin, and a signature's. */
export const MARGIN_SECONDS = 6n
/**
 * Gas an authorize or charge may take beyond its group's: the payer's token store clone on first use, the collector's
 * pull.
 */
const COLLECT_GAS = 150_000n

const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const

/** The collect settle's ledger key: the payer's token authorization, usable once. */
export function collectKey(p: Resolved): string | Failure {
  const c = parseCollect(p.payload)
  if (!c)
    return {
      reason: reasons.acPayloadFormat,
      message:
        'a collect payload carries authorization (EIP-3009) or permit2Authorization, signature and a 32-byte salt',
    }
  const nonce = c.auth.kind === 'eip3009' ? c.auth.nonce : c.auth.nonce.toString(16)
  return `auth-capture:${p.spec.caip2}:collect:${c.auth.kind}:${c.auth.from.toLowerCase()}:${nonce}`
}

/**
 * The `PaymentInfo` the client signed for: every field from the requirements, the payer and the salt (binding
 * appendix).
 */
export function collectedInfo(p: Resolved, t: Terms, c: CollectPayload): PaymentInfo {
  return {
    operator: t.operator,
    payer: c.auth.from,
    receiver: p.requirements.payTo as Address,
    token: p.requirements.asset as Address,
    maxAmount: BigInt(p.requirements.amount),
    preApprovalExpiry: Number(c.auth.validBefore),
    authorizationExpiry: t.captureDeadline,
    refundExpiry: t.refundDeadline,
    minFeeBps: t.minFeeBps,
    maxFeeBps: t.maxFeeBps,
    feeReceiver: t.feeRecipient,
    salt: c.salt,
  }
}

/**
 * The collect settle (binding, "Verification: client payment payload", steps 1-15): `authorize`
 * under paymentFlow `escrow` holds the full maximum the client signed; `charge` under
 * `authorization` moves a server-chosen amount at most that, terminally, with the receiver
 * authorizer's consent. Sponsored: the executor calls the escrow with the client's authorization
 * to the collector, so the payer needs no ETH; the ledger key is that authorization.
 */
export async function checkCollect(
  rt: EvmRuntime,
  p: Resolved,
  purpose: Purpose,
  authorizer: PrivateKeyAccount | undefined,
  factories: readonly Address[],
): Promise<Checked> {
  const t = readTerms(p, rt.account)
  if ('reason' in t) return { ok: false, ...t }
  const c = parseCollect(p.payload)
  if (!c)
    return {
      ok: false,
      reason: reasons.acPayloadFormat,
      message:
        'a collect payload carries authorization (EIP-3009) or permit2Authorization, signature and a 32-byte salt',
    }
  const payer = c.auth.from
  const fail = (f: Failure): Checked => ({ ok: false, payer, ...f })
  const bound = relaysLifecycle(t)
  if (bound !== (c.saltNonce !== undefined))
    return fail({
      reason: reasons.acPayloadFormat,
      message: bound
        ? 'the receiver authorizer binds the salt: saltNonce is required'
        : 'saltNonce is carried only when the salt is bound',
    })
  if (c.auth.kind !== t.method)
    return fail({
      reason: reasons.acPayloadMethodMismatch,
      message: `the payload is ${c.auth.kind}, the requirements ask ${t.method}`,
    })
  const wrongFee = t.deployment.version === 'v1.0' ? 'feeAmount' : 'feeBps'
  if (p.payload[wrongFee] !== undefined)
    return fail({
      reason: reasons.acPayloadFormat,
      message: `${wrongFee} is not the ${t.deployment.version} escrow's fee field`,
    })
  const completion = chargeCompletion(p.payload)
  if ('reason' in completion) return fail(completion)
  if (t.flow === 'escrow' && completion.given)
    return fail({
      reason: reasons.acPayloadFormat,
      message: 'an authorize carries no amount, fee, feeReceiver or authorizerSignature',
    })
  if (t.flow === 'authorization' && !bound)
    return fail({
      reason: reasons.acMissingReceiverAuthorizer,
      message: 'a charge needs a non-zero extra.receiverAuthorizer',
    })
  if (t.flow === 'authorization' && purpose !== 'verify' && !completion.given)
    return fail({
      reason: reasons.acPayloadFormat,
      message:
        'a charge to settle carries amount, feeAmount (feeBps on ' +
        'v1.0), feeReceiver and, unless delegated, authorizerSignature',
    })

  const now = nowSeconds()
  const maxTimeout = BigInt(p.requirements.maxTimeoutSeconds ?? 0)
  if (
    t.refundDeadline < t.captureDeadline ||
    now + maxTimeout > BigInt(t.captureDeadline) ||
    c.auth.validBefore > BigInt(t.captureDeadline)
  ) {
    return fail({
      reason: reasons.acDeadlineOrdering,
      message:
        `deadlines must satisfy now + maxTimeoutSeconds <= captureDeadline (${t.captureDeadline}) <= ` +
        `refundDeadline (${t.refundDeadline}), and the authorization must expire by the capture deadline`,
    })
  }
  if (BigInt(t.captureDeadline) <= now + MARGIN_SECONDS)
    return fail({
      reason: reasons.acCaptureDeadlineExpired,
      message: `captureDeadline ${t.captureDeadline} is not ${MARGIN_SECONDS} s ahead`,
    })
  if (c.auth.validBefore <= now + MARGIN_SECONDS)
    return fail({
      reason: reasons.acAuthorizationExpired,
      message: `the authorization expires at ${c.auth.validBefore}`,
    })
  if (c.auth.kind === 'eip3009' && c.auth.validAfter > now)
    return fail({
      reason: reasons.acAuthorizationNotYetValid,
      message: `the authorization is valid only after ${c.auth.validAfter}`,
    })
  const collector = c.auth.kind === 'eip3009' ? t.deployment.eip3009Collector : t.deployment.permit2Collector
  const named = c.auth.kind === 'eip3009' ? c.auth.to : c.auth.spender
  if (!isAddressEqual(named, collector))
    return fail({
      reason: reasons.acTokenCollectorMismatch,
      message:
        `the authorization names ${named}, ` + `not the ${t.deployment.version} ${c.auth.kind} collector ${collector}`,
    })
  if (c.auth.kind === 'permit2' && !isAddressEqual(c.auth.token, p.requirements.asset as Address))
    return fail({ reason: reasons.acTokenMismatch, message: `permitted.token ${c.auth.token} is not the asset` })
  if (c.auth.value !== BigInt(p.requirements.amount))
    return fail({
      reason: reasons.acAmountMismatch,
      message: `the client signed ${c.auth.value}, the maximum asked is ${p.requirements.amount}`,
    })
  if (bound && boundSalt(t.receiverAuthorizer, zeroAddress, c.saltNonce!) !== c.salt) {
    return fail({
      reason: reasons.acSaltBindingMismatch,
      message: `salt is not the commitment to receiver authorizer ${t.receiverAuthorizer} and saltNonce`,
    })
  }
  const info = collectedInfo(p, t, c)
  const chainId = p.spec.chainId!
  const nonce = signatureNonce(info, chainId, t.deployment.escrow)
  const signed = c.auth.kind === 'eip3009' ? c.auth.nonce : `0x${c.auth.nonce.toString(16).padStart(64, '0')}`
  if (signed.toLowerCase() !== nonce)
    return fail({
      reason: reasons.acNonceMismatch,
      message:
        "the authorization nonce is not this payment's signatureNonce: " +
        'some requirement differs from what the client signed',
    })
  const digest = () =>
    c.auth.kind === 'eip3009'
      ? hashTypedData({
          domain: { name: t.name, version: t.version, chainId, verifyingContract: p.requirements.asset as Address },
          types: receiveWithAuthorizationTypes,
          primaryType: 'ReceiveWithAuthorization',
          message: {
            from: payer,
            to: collector,
            value: c.auth.value,
            validAfter: c.auth.validAfter,
            validBefore: c.auth.validBefore,
            nonce: nonce,
          },
        })
      : hashTypedData({
          domain: { name: 'Permit2', chainId, verifyingContract: PERMIT2_ADDRESS },
          types: permitTransferFromTypes,
          primaryType: 'PermitTransferFrom',
          message: {
            permitted: { token: info.token, amount: info.maxAmount },
            spender: collector,
            nonce: BigInt(nonce),
            deadline: c.auth.validBefore,
          },
        })
  const verdict = await checkPayerSignature(rt, {
    payer,
    digest,
    signature: c.signature,
    allowedFactories: factories,
    invalid: reasons.acSignature,
  })
  if (!verdict.ok)
    return fail({
      reason:
        verdict.reason === reasons.eip6492FactoryNotAllowed ? reasons.acErc6492FactoryNotAllowed : reasons.acSignature,
      message: verdict.message,
    })

  // The collector receives the signature as sent: an ERC-6492 wrapper stays intact for it to deploy the wallet.
  const collectorData = c.signature
  let call
  let amount = info.maxAmount
  // A counterfactual payer's wallet is deployed by the collector (through Multicall3) in the same call.
  const gas = COLLECT_GAS + (verdict.deploy?.gas ?? 0n)
  if (t.flow === 'escrow')
    call = escrowCall(t.deployment, 'authorize', [info, info.maxAmount, collector, collectorData], gas)
  else {
    amount = completion.given ? completion.amount : info.maxAmount
    const fee = completion.given ? completion.fee : (amount * BigInt(t.minFeeBps)) / 10_000n
    const feeReceiver = completion.given ? completion.feeReceiver : t.feeRecipient
    if (amount === 0n || amount > info.maxAmount)
      return fail({
        reason: reasons.acAmountMismatch,
        message: `a charge moves more than 0 and at most ${info.maxAmount}`,
      })
    if (completion.given) {
      const typed = authorizerTypedData(chainId, t.operator, {
        type: 'charge',
        version: t.deployment.version,
        paymentInfoHash: paymentInfoHash(info, chainId, t.deployment.escrow),
        amount,
        tokenCollector: collector,
        collectorDataHash: keccak256(collectorData),
        fee,
        feeReceiver,
      })
      const refused = await consented(rt, p, t, typed as never, completion.authorizerSignature, authorizer)
      if (refused) return fail(refused)
    }
    const feeArg = t.deployment.version === 'v1.0' ? Number(fee) : fee
    call = escrowCall(t.deployment, 'charge', [info, amount, collector, collectorData, feeArg, feeReceiver], gas)
  }
  const held = await rt.chain.client.readContract({
    address: info.token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [payer],
  })
  if (held < info.maxAmount)
    return fail({
      reason: reasons.acInsufficientBalance,
      message: `the payer holds ${held}, less than the ${info.maxAmount} signed`,
    })
  await rt.ready()
  const group = [call]
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group, t.flow === 'escrow' ? 'authorize' : 'charge')
    if (refused) return fail(refused)
  }
  const extra = {
    operation: t.flow === 'escrow' ? 'authorize' : 'charge',
    paymentInfo: paymentInfoWire(info),
    paymentInfoHash: paymentInfoHash(info, chainId, t.deployment.escrow),
    captureMode: t.captureMode,
  }
  return {
    ok: true,
    payer,
    extra,
    async execute() {
      const out = await send(rt, group)
      return out.ok ? { ...out, answer: { amount: amount.toString(), extra } } : out
    },
  }
}

type Completion =
  | { given: false }
  | { given: true; amount: bigint; fee: bigint; feeReceiver: Address; authorizerSignature?: Hex }

/**
 * A charge's four server-added fields: all or none (the authorizer signature alone may be left to a delegated
 * authorizer).
 */
function chargeCompletion(payload: Record<string, unknown>): Completion | Failure {
  const fields = [payload.amount, payload.feeAmount ?? payload.feeBps, payload.feeReceiver]
  if (fields.every((f) => f === undefined) && payload.authorizerSignature === undefined) return { given: false }
  const amount = uint(payload.amount),
    fee = uint(payload.feeAmount ?? payload.feeBps),
    feeReceiver = parseAddress(payload.feeReceiver)
  const sig = payload.authorizerSignature === undefined ? undefined : signature(payload.authorizerSignature)
  if (
    amount === undefined ||
    fee === undefined ||
    !feeReceiver ||
    (payload.authorizerSignature !== undefined && !sig) ||
    (payload.feeAmount !== undefined && payload.feeBps !== undefined)
  ) {
    return {
      reason: reasons.acPayloadFormat,
      message:
        'a completed charge carries amount, feeAmount (feeBps on ' +
        'v1.0), feeReceiver and optionally authorizerSignature, together',
    }
  }
  return { given: true, amount, fee, feeReceiver, ...(sig ? { authorizerSignature: sig } : {}) }
}
