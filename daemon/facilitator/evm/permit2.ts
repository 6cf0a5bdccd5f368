import {
  type Abi,
  type Address,
  decodeFunctionResult,
  encodeFunctionData,
  type Hex,
  hashTypedData,
  isAddressEqual,
} from 'viem'
import * as X402Permit2ProxyLite from '../../../contracts/evm/artifacts/X402Permit2ProxyLite.js'
import { nowSeconds } from '../../../src/sdk/x402/evm/authorization.js'
import { readCall, tokenAbi } from '../../../src/sdk/x402/evm/calls.js'
import type { ExecCall } from '../../../src/sdk/x402/evm/executor.js'
import {
  checkPermit2,
  PERMIT2_ADDRESS,
  type Permit2Authorization,
  parsePermit2,
  permit2Abi,
  permit2ReplayKey,
  permit2SettleCall,
  permit2TypedData,
  X402_EXACT_PERMIT2_PROXY,
} from '../../../src/sdk/x402/evm/permit2.js'
import { explainPermit2Revert } from '../../../src/sdk/x402/evm/permit2-revert.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import { methods } from '../../../src/sdk/x402/types.js'
import type { Failure, PaymentMethod } from '../method.js'
import { permit2SettleWithPermitCall, sponsoredPermit } from './eip2612-sponsoring.js'
import { executeGroup } from './execute.js'
import type { EvmRuntime } from './runtime.js'
import { checkPayerSignature } from './signature.js'

const read = (abi: Abi, functionName: string, ok: boolean | undefined, data: Hex | undefined): unknown => {
  if (!ok || !data || data === '0x') return undefined
  try {
    return decodeFunctionResult({ abi, functionName, data } as never)
  } catch {
    return undefined
  }
}

/**
 * The reference EVM `exact` method with `assetTransferMethod: 'permit2'`: the payer approved
 * Permit2 once and signs a PermitWitnessTransferFrom whose spender is the x402 Permit2 proxy and
 * whose witness names payTo. Settlement is the proxy's `settle`, sent through the batched executor
 * (the facilitator pays gas); Permit2's nonce bitmap makes a second settlement impossible on chain.
 * A payer that never approved Permit2 may send an EIP-2612 permit for it in the eip2612GasSponsoring
 * extension (./eip2612-sponsoring.ts): the settlement is then `settleWithPermit`.
 */
export function permit2Method(
  runtimeOf: (network: string) => EvmRuntime,
  allowedFactories: () => readonly Address[],
): PaymentMethod {
  return {
    name: methods.permit2,
    family: 'evm',
    matches(p) {
      const atm = p.requirements.extra.assetTransferMethod
      return typeof atm === 'string' ? atm === methods.permit2 : 'permit2Authorization' in p.payload
    },
    key(p) {
      const a = parsePermit2(p.payload)
      return 'reason' in a ? a : permit2ReplayKey(p.spec.caip2, a)
    },
    async check(p, purpose) {
      const a = parsePermit2(p.payload)
      if ('reason' in a) return { ok: false, ...a }
      // The signature is judged below, by whether the payer has code (./signature.ts).
      const local = await checkPermit2(a, p.requirements, p.spec.chainId!, nowSeconds(), { signature: false })
      if (local) return { ok: false, payer: a.from, ...local }
      // The EIP-2612 gas-sponsoring extension: Permit2's allowance comes in the settlement itself.
      const sponsored = sponsoredPermit(p.extensions, a, nowSeconds())
      if (sponsored && 'reason' in sponsored) return { ok: false, ...sponsored }
      const rt = runtimeOf(p.spec.key)
      await rt.ready()
      const sig = await checkPayerSignature(rt, {
        payer: a.from,
        digest: () => hashTypedData(permit2TypedData(p.spec.chainId!, a)),
        signature: p.payload.signature as Hex,
        allowedFactories: allowedFactories(),
        invalid: reasons.permit2InvalidSignature,
        // Verified moments ago (same payload): a plain signature needs no second ecrecover.
        lazy: purpose === 'settle-verified',
      })
      if (!sig.ok) return { ...sig, ok: false }
      const signed = { ...a, signature: sig.signature }
      const call = sponsored ? permit2SettleWithPermitCall(signed, sponsored) : permit2SettleCall(signed)
      const group = sig.deploy ? [sig.deploy, call] : [call]
      if (purpose !== 'settle-verified') {
        const refused = await permit2OnChain(rt, a, group, sponsored !== undefined)
        if (refused) return { ok: false, payer: a.from, ...refused }
      }
      return {
        ok: true,
        payer: a.from,
        execute: () => executeGroup(rt, group, explainPermit2Revert, reasons.permit2SimulationFailed),
      }
    },
  }
}

/**
 * One eth_call: the proxy's (exact's or upto's) presence, balance, Permit2 allowance and the nonce's bit, read beside
 * a simulation of the very settle call. The reads name the cause where the reference would.
 */
export async function permit2OnChain(
  rt: EvmRuntime,
  a: Permit2Authorization,
  settle: ExecCall | ExecCall[],
  sponsored: boolean,
  proxy: `0x${string}` = X402_EXACT_PERMIT2_PROXY,
  amount: bigint = a.amount,
): Promise<Failure | undefined> {
  const wordPos = a.nonce >> 8n
  const sim = await rt.simulate([
    [{ target: proxy, data: encodeFunctionData({ abi: X402Permit2ProxyLite.abi, functionName: 'PERMIT2' }) }],
    [readCall.balanceOf(a.token, a.from)],
    [
      {
        target: a.token,
        data: encodeFunctionData({ abi: tokenAbi, functionName: 'allowance', args: [a.from, PERMIT2_ADDRESS] }),
      },
    ],
    [
      {
        target: PERMIT2_ADDRESS,
        data: encodeFunctionData({ abi: permit2Abi, functionName: 'nonceBitmap', args: [a.from, wordPos] }),
      },
    ],
    Array.isArray(settle) ? settle : [settle],
  ])
  const proxyPermit2 = read(X402Permit2ProxyLite.abi as Abi, 'PERMIT2', sim.ok[0], sim.data[0])
  if (typeof proxyPermit2 !== 'string' || !isAddressEqual(proxyPermit2 as `0x${string}`, PERMIT2_ADDRESS)) {
    return { reason: reasons.permit2ProxyNotDeployed, message: `no x402 Permit2 proxy at ${proxy} on this chain` }
  }
  const bitmap = read(permit2Abi, 'nonceBitmap', sim.ok[3], sim.data[3])
  if (typeof bitmap === 'bigint' && (bitmap >> (a.nonce & 255n)) & 1n) {
    return { reason: reasons.permit2InvalidNonce, message: `Permit2 nonce ${a.nonce} of ${a.from} was already used` }
  }
  const balance = read(tokenAbi, 'balanceOf', sim.ok[1], sim.data[1])
  if (typeof balance === 'bigint' && balance < amount) {
    return { reason: reasons.permit2InsufficientBalance, message: `${a.from} holds ${balance}, less than ${amount}` }
  }
  const allowance = read(tokenAbi, 'allowance', sim.ok[2], sim.data[2])
  // A sponsored permit grants the allowance inside the settlement: the simulation below judges it.
  if (!sponsored && typeof allowance === 'bigint' && allowance < amount) {
    return {
      reason: reasons.permit2AllowanceRequired,
      message:
        `${a.from} allows Permit2 ${allowance} of the token, less ` +
        `than ${amount}; approve Permit2 (${PERMIT2_ADDRESS}) first`,
    }
  }
  if (!sim.ok[4]) return explainPermit2Revert(sim.data[4])
  return undefined
}
