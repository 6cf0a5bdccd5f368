import { type Hex, isAddressEqual } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { channelIdOf, claimBatchTypedData } from '../../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { settlementCall } from './chain.js'
import { send, simulated } from './checks.js'
import { type ClaimRow, optionalSignature, parseClaims } from './parse.js'

/** Gas per claimed channel beyond the executor's per-group allowance (measured ~21k a row on anvil). */
const ROW_GAS = 30_000n

/**
 * The `claimWithSignature` call for rows sharing one receiver authorizer: the seller's signature
 * when it sent one, else ours when the channels delegate to this facilitator's authorizer.
 */
export async function claimCall(
  p: Resolved,
  rows: ClaimRow[],
  given: Hex | undefined,
  authorizer: PrivateKeyAccount | undefined,
) {
  const ra = rows[0]!.voucher.channel.receiverAuthorizer
  if (rows.some((r) => !isAddressEqual(r.voucher.channel.receiverAuthorizer, ra))) {
    return {
      reason: reasons.batchClaimPayload,
      message: 'every claimed channel must share one receiver authorizer',
    } as const
  }
  let signature = given
  if (!signature) {
    if (!authorizer)
      return {
        reason: reasons.batchAuthorizerNotConfigured,
        message:
          'no claimAuthorizerSignature, and this facilitator offers no receiver authorizer to sign for the seller',
      } as const
    if (!isAddressEqual(ra, authorizer.address)) {
      return {
        reason: reasons.batchAuthorizerAddressMismatch,
        message:
          `no claimAuthorizerSignature, and the channels' receiver ` +
          `authorizer ${ra} is not this facilitator's ${authorizer.address}`,
      } as const
    }
    const chainId = p.spec.chainId!
    signature = await authorizer.signTypedData(
      claimBatchTypedData(
        chainId,
        rows.map((r) => ({
          channelId: channelIdOf(r.voucher.channel, chainId),
          maxClaimableAmount: r.voucher.maxClaimableAmount,
          totalClaimed: r.totalClaimed,
        })),
      ),
    )
  }
  return settlementCall('claimWithSignature', [rows, signature], ROW_GAS * BigInt(rows.length))
}

/** Many channels' vouchers claimed in one transaction: accounting only, no money moves (answer `amount: ""`). */
export async function checkClaim(
  rt: EvmRuntime,
  p: Resolved,
  purpose: Purpose,
  authorizer: PrivateKeyAccount | undefined,
): Promise<Checked> {
  const rows = parseClaims(p.payload.claims)
  if (!rows)
    return {
      ok: false,
      reason: reasons.batchClaimPayload,
      message: 'claims must be a non-empty list of {voucher: {channel, maxClaimableAmount}, signature, totalClaimed}',
    }
  if (rows.some((r) => !isAddressEqual(r.voucher.channel.token, p.requirements.asset as Hex))) {
    return {
      ok: false,
      reason: reasons.batchTokenMismatch,
      message: `every claimed channel must be in the asset ${p.requirements.asset}`,
    }
  }
  const call = await claimCall(p, rows, optionalSignature(p.payload.claimAuthorizerSignature), authorizer)
  if ('reason' in call) return { ok: false, ...call }
  await rt.ready()
  const group = [call]
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group)
    if (refused)
      return { ok: false, reason: reasons.batchClaimSimulationFailed, message: `the claim would revert: ${refused}` }
  }
  return {
    ok: true,
    payer: '',
    async execute() {
      const out = await send(rt, group, reasons.batchClaimTransactionFailed)
      return out.ok ? { ...out, answer: { amount: '' } } : out
    },
  }
}
