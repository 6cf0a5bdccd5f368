import { getAddress, isHex } from 'viem'
import { parseEvmAuthorization } from '../../../src/sdk/x402/evm/authorization.js'
import { explainRevert } from '../../../src/sdk/x402/evm/revert.js'
import { planEvmPayment, replayKey } from '../../../src/sdk/x402/evm/verify.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import { executeGroup } from './execute.js'
import type { EvmRuntime } from './runtime.js'

type Name = typeof methods.erc2612 | typeof methods.eip3009

/**
 * The two EVM methods whose payload is `{signature, authorization}` (SPEC §2.8): erc2612, ours
 * (an EIP-2612 permit to the facilitator's signer, then transferFrom) and eip3009, the reference
 * default (transferWithAuthorization). Both settle through the batched executor account.
 */
export function signedAuthorizationMethod(name: Name, runtimeOf: (network: string) => EvmRuntime): PaymentMethod {
  const nonceKind = name === methods.eip3009 ? 'bytes32' : 'uint'
  return {
    name,
    family: 'evm',
    matches(p) {
      const atm = p.requirements.extra.assetTransferMethod
      if (typeof atm === 'string') return atm === name
      if ('permit2Authorization' in p.payload) return false
      // Without a declared method the nonce tells them apart: EIP-3009's is 32 random bytes, a permit's a counter.
      const nonce = (p.payload.authorization as { nonce?: unknown } | undefined)?.nonce
      const looks3009 = typeof nonce === 'string' && isHex(nonce) && nonce.length === 66
      return name === methods.eip3009 ? looks3009 || typeof nonce !== 'string' : !looks3009 && typeof nonce === 'string'
    },
    key(p) {
      const a = parseEvmAuthorization(p.payload, nonceKind)
      return 'reason' in a ? a : replayKey(name, p.spec.caip2, getAddress(p.token.address), a)
    },
    async check(p, purpose) {
      const rt = runtimeOf(p.spec.key)
      await rt.ready()
      const simulate = purpose === 'settle-verified' ? undefined : rt.simulate
      const plan = await planEvmPayment({ method: name, payload: p.payload, requirements: p.requirements, spender: rt.account, simulate })
      if (!plan.ok) return plan
      return {
        ok: true,
        payer: plan.payer,
        execute: () => executeGroup(rt, plan.group, explainRevert, reasons.evmSimulationFailed),
      }
    },
  }
}
