import { type Address, getAddress, type Hex, hashTypedData, isHex } from 'viem'
import type { EvmAuthorization } from '../../../src/sdk/x402/evm/authorization.js'
import { parseEvmAuthorization } from '../../../src/sdk/x402/evm/authorization.js'
import { explainRevert } from '../../../src/sdk/x402/evm/revert.js'
import { permitTypedData, transferWithAuthorizationTypedData } from '../../../src/sdk/x402/evm/typed-data.js'
import { planEvmPayment, replayKey } from '../../../src/sdk/x402/evm/verify.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { PaymentMethod } from '../method.js'
import { executeGroup } from './execute.js'
import type { EvmRuntime } from './runtime.js'
import { checkPayerSignature } from './signature.js'

type Name = typeof methods.erc2612 | typeof methods.eip3009

/**
 * The two EVM methods whose payload is `{signature, authorization}` (docs/facilitator.md "x402 facilitator"): erc2612,
 * ours
 * (an EIP-2612 permit to the facilitator's signer, then transferFrom) and eip3009, the reference
 * default (transferWithAuthorization). Both settle through the batched executor account. The
 * signature is judged as the token will judge it (./signature.ts: ECDSA, EIP-7702, ERC-1271, and
 * ERC-6492 from allow-listed factories, whose deployment then runs first in the payment's group).
 */
export function signedAuthorizationMethod(
  name: Name,
  runtimeOf: (network: string) => EvmRuntime,
  allowedFactories: () => readonly Address[],
): PaymentMethod {
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
      const t = rt.chain.tokens[p.token.symbol]
      // The domain the payer signed: the seller's stated one (a wrong one is named by the simulation's reads), else the
      // token's.
      const domain = {
        name:
          typeof p.requirements.extra.name === 'string'
            ? p.requirements.extra.name
            : (t?.permitDomain?.name ?? p.token.symbol),
        version:
          typeof p.requirements.extra.version === 'string'
            ? p.requirements.extra.version
            : (t?.permitDomain?.version ?? '1'),
        chainId: p.spec.chainId!,
        verifyingContract: getAddress(p.token.address),
      }
      const judge = (a: EvmAuthorization, lazy: boolean) => {
        const digest = () =>
          name === methods.eip3009
            ? hashTypedData(
                transferWithAuthorizationTypedData(domain, {
                  from: a.from,
                  to: a.to,
                  value: a.value,
                  validAfter: a.validAfter,
                  validBefore: a.validBefore,
                  nonce: a.nonce as Hex,
                }),
              )
            : hashTypedData(
                permitTypedData(domain, {
                  owner: a.from,
                  spender: rt.account,
                  value: a.value,
                  nonce: BigInt(a.nonce),
                  deadline: a.validBefore,
                }),
              )
        return checkPayerSignature(rt, {
          payer: a.from,
          digest,
          signature: a.signature,
          allowedFactories: allowedFactories(),
          invalid: reasons.evmSignature,
          lazy,
        })
      }
      let parsed: EvmAuthorization | undefined
      // A plain signature is judged by the token itself in the simulation; an ERC-6492 one here first.
      const checkSignature = async (a: EvmAuthorization) => {
        parsed = a
        const v = await judge(a, true)
        return v.ok
          ? { signature: v.signature, before: v.deploy ? [v.deploy] : [] }
          : { reason: v.reason, message: v.message }
      }
      const plan = await planEvmPayment({
        method: name,
        payload: p.payload,
        requirements: p.requirements,
        spender: rt.account,
        simulate,
        checkSignature,
      })
      if (!plan.ok && plan.reason === reasons.evmSignature && parsed) {
        // The token refused the signature: say why, as the payer's code decides (recovers to whom, or the wallet's
        // answer).
        const why = await judge(parsed, false)
        return why.ok ? plan : { ...plan, message: `${why.message} (${plan.message})` }
      }
      if (!plan.ok) return plan
      return {
        ok: true,
        payer: plan.payer,
        execute: () => executeGroup(rt, plan.group, explainRevert, reasons.evmSimulationFailed),
      }
    },
  }
}
