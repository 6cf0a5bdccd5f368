import { type Address, type Hex, hashTypedData } from 'viem'
import { nowSeconds } from '../../../src/sdk/x402/evm/authorization.js'
import { permit2ReplayKey } from '../../../src/sdk/x402/evm/permit2.js'
import { explainPermit2Revert } from '../../../src/sdk/x402/evm/permit2-revert.js'
import {
  checkUpto,
  parseUpto,
  UPTO,
  uptoSettleCall,
  uptoSettleWithPermitCall,
  uptoTypedData,
  X402_UPTO_PERMIT2_PROXY,
} from '../../../src/sdk/x402/evm/upto.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import { sponsoredPermit } from './eip2612-sponsoring.js'
import { executeGroup } from './execute.js'
import { permit2OnChain } from './permit2.js'
import type { EvmRuntime } from './runtime.js'
import { checkPayerSignature } from './signature.js'

/**
 * The reference `upto` scheme on EVM (metered payments): the payer signs a Permit2 transfer of at
 * most `permitted.amount`, spender the x402 upto proxy, witness naming payTo and this facilitator.
 * Verify judges it against the maximum (the requirements' `amount` must equal it, as the reference
 * requires). Settle receives the requirements with `amount` set to what the seller actually used:
 * it is checked against the signed maximum (above it: `invalid_upto_evm_payload_settlement_exceeds_amount`,
 * nothing sent), zero settles nothing on chain, anything else moves exactly that amount through the
 * proxy, which only the witness's facilitator may call. Permit2's nonce makes a second settlement
 * impossible on chain; the ledger makes it impossible here first (same replay key as permit2).
 */
export function uptoMethod(
  runtimeOf: (network: string) => EvmRuntime,
  allowedFactories: () => readonly Address[],
): PaymentMethod {
  return {
    name: UPTO,
    scheme: UPTO,
    family: 'evm',
    matches: (p) => p.scheme === UPTO,
    key(p) {
      const a = parseUpto(p.payload)
      return 'reason' in a ? a : permit2ReplayKey(p.spec.caip2, a)
    },
    async check(p, purpose) {
      // Parsed with the ERC-6492 wrapper taken off; the raw signature (p.payload.signature) keeps it for the judge.
      const a = parseUpto(p.payload)
      if ('reason' in a) return { ok: false, ...a }
      const atm = p.requirements.extra.assetTransferMethod
      if (atm !== undefined && atm !== methods.permit2) {
        return {
          ok: false,
          payer: a.from,
          reason: reasons.unsupportedScheme,
          message: `upto settles with assetTransferMethod 'permit2', not '${String(atm)}'`,
        }
      }
      const rt = runtimeOf(p.spec.key)
      const now = nowSeconds()
      // At settle the requirements carry the amount used; the terms are judged against the maximum.
      const amount = BigInt(p.requirements.amount)
      const terms = purpose === 'verify' ? p.requirements : { ...p.requirements, amount: a.amount.toString() }
      const local = checkUpto(a, terms, { facilitator: rt.account, now })
      if (local) return { ok: false, payer: a.from, ...local }
      if (amount > a.amount) {
        return {
          ok: false,
          payer: a.from,
          reason: reasons.uptoSettlementExceedsAmount,
          message:
            `the seller asked to settle ${amount}, more than the ` +
            `${a.amount} the payer signed for; nothing was moved`,
        }
      }
      const sponsored = sponsoredPermit(p.extensions, a, now)
      if (sponsored && 'reason' in sponsored) return { ok: false, ...sponsored }
      await rt.ready()
      const sig = await checkPayerSignature(rt, {
        payer: a.from,
        digest: () => hashTypedData(uptoTypedData(p.spec.chainId!, a)),
        signature: p.payload.signature as Hex,
        allowedFactories: allowedFactories(),
        invalid: reasons.permit2InvalidSignature,
        // Verified moments ago (same payload): a plain signature needs no second ecrecover.
        lazy: purpose === 'settle-verified',
      })
      if (!sig.ok) return { ...sig, ok: false }
      const signed = { ...a, signature: sig.signature }
      const call = sponsored ? uptoSettleWithPermitCall(signed, amount, sponsored) : uptoSettleCall(signed, amount)
      const group = sig.deploy ? [sig.deploy, call] : [call]
      if (purpose !== 'settle-verified' && amount > 0n) {
        const refused = await permit2OnChain(
          rt,
          signed,
          group,
          sponsored !== undefined,
          X402_UPTO_PERMIT2_PROXY,
          amount,
        )
        if (refused) return { ok: false, payer: a.from, ...refused }
      }
      // Nothing used, nothing moved: the authorization is spent in the ledger only (only we may settle it).
      if (amount === 0n) return { ok: true, payer: a.from, execute: async () => ({ ok: true, tx: '' }) }
      return {
        ok: true,
        payer: a.from,
        execute: () => executeGroup(rt, group, explainPermit2Revert, reasons.permit2SimulationFailed),
      }
    },
  }
}
