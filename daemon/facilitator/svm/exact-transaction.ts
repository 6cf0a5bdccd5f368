import { reasons } from '../../../src/sdk/x402/reasons.js'
import { checkExactTransaction } from '../../../src/sdk/x402/svm/exact-transaction.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import type { SvmRuntime } from './runtime.js'

/**
 * The reference Solana `exact` form, so stock x402 clients pay through this facilitator: the
 * payer's partially signed TransferChecked, which the facilitator simulates, co-signs as fee payer
 * and submits. Its replay key is the message hash: the blockhash makes each one unique.
 */
export function exactTransactionMethod(rt: () => SvmRuntime): PaymentMethod {
  return {
    name: methods.svmTransaction,
    family: 'solana',
    matches: (p) => typeof p.payload.transaction === 'string',
    key(p) {
      const c = checkExactTransaction(p.payload, p.requirements, rt().signer.publicKey, p.spec.caip2)
      return 'key' in c ? c.key : c
    },
    async check(p, purpose) {
      const r = rt()
      const c = checkExactTransaction(p.payload, p.requirements, r.signer.publicKey, p.spec.caip2)
      if (!('key' in c)) return { ok: false, ...c }
      const sim =
        purpose === 'settle-verified'
          ? undefined
          : await r.connection.simulateTransaction(c.tx, { sigVerify: false, commitment: 'confirmed' })
      if (sim?.value.err) {
        return {
          ok: false,
          payer: c.payer,
          reason: reasons.svmSimulationFailed,
          message:
            `simulation failed: ${JSON.stringify(sim.value.err)} ` + (sim.value.logs ?? []).slice(-2).join(' | '),
        }
      }
      return {
        ok: true,
        payer: c.payer,
        async execute() {
          c.tx.sign([r.signer])
          const landed = await r.land(c.tx.serialize())
          if (landed.state === 'ok') return { ok: true, tx: landed.signature }
          if (landed.state === 'pending')
            return {
              ok: false,
              pending: true,
              tx: landed.signature,
              reason: reasons.settlementPending,
              message: `transaction ${landed.signature} is not confirmed yet`,
            }
          return { ok: false, tx: landed.signature, reason: reasons.svmTransactionFailed, message: landed.message }
        },
      }
    },
  }
}
