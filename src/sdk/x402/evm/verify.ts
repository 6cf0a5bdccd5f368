import { type Address, decodeFunctionResult, getAddress, type Hex } from 'viem'
import { reasons } from '../reasons.js'
import type { PaymentRequirements } from '../types.js'
import {
  checkAuthorization,
  type EvmAuthorization,
  type Failure,
  nowSeconds,
  parseEvmAuthorization,
} from './authorization.js'
import { eip3009Group, erc2612Group, readCall, tokenAbi } from './calls.js'
import type { ExecCall, Group } from './executor.js'
import { explainRevert } from './revert.js'

/** Runs groups through the executor without mining them (one eth_call): per group, success and data. */
export type Simulate = (groups: Group[]) => Promise<{ ok: readonly boolean[]; data: readonly Hex[] }>

/** A payment that passed every check: who pays, and the group settlement runs. */
export type Planned = { ok: true; payer: Address; group: Group; auth: EvmAuthorization }
export type Rejected = { ok: false; payer?: string } & Failure
export type Plan = Planned | Rejected

export type EvmVerifyInput = {
  method: 'erc2612' | 'eip3009'
  payload: Record<string, unknown>
  requirements: PaymentRequirements
  /** The facilitator's signer: the permit's spender, and the executor account. */
  spender: Address
  /**
   * Omitted: local checks only, for a payment the chain already approved moments ago (a settle
   * right after its verify). The executor runs each payment alone, so if the chain changed its
   * mind meanwhile, settlement fails for that payment only.
   */
  simulate?: Simulate
  now?: bigint
  /**
   * Judges the signature once the local checks passed, before the chain is asked (the daemon's,
   * by whether the payer has code): the signature to put on chain and calls to run before the
   * payment (an ERC-6492 wallet deployment), or the failure. Absent: the simulation judges it.
   */
  checkSignature?: (a: EvmAuthorization) => Promise<{ signature: Hex; before?: ExecCall[] } | Failure>
}

const decode = (
  fn: 'balanceOf' | 'nonces' | 'name' | 'version' | 'authorizationState',
  ok: boolean | undefined,
  data: Hex | undefined,
) => {
  if (!ok || !data) return undefined
  try {
    return decodeFunctionResult({ abi: tokenAbi, functionName: fn, data }) as bigint | string | boolean
  } catch {
    return undefined
  }
}

/**
 * Everything an erc2612 or eip3009 payment must satisfy, with one round trip to the chain: the
 * local checks first, then balance, nonce, token name and version read beside a simulation of
 * the very group settlement would run, so what passes here is what would succeed on chain.
 */
export async function planEvmPayment(input: EvmVerifyInput): Promise<Plan> {
  const { method, requirements: r } = input
  const parsed = parseEvmAuthorization(input.payload, method === 'eip3009' ? 'bytes32' : 'uint')
  if ('reason' in parsed) return { ok: false, ...parsed }
  const a = parsed
  const token = getAddress(r.asset)
  const now = input.now ?? nowSeconds()
  const local = checkAuthorization(a, r, {
    now,
    value: method === 'erc2612' ? 'at-least' : 'exact',
    boundDeadline: method === 'erc2612',
    spender: input.spender,
  })
  if (local) return { ok: false, payer: a.from, ...local }

  const amount = BigInt(r.amount)
  const judged = input.checkSignature ? await input.checkSignature(a) : { signature: a.signature }
  if ('reason' in judged) return { ok: false, payer: a.from, ...judged }
  const signature = judged.signature
  const group = [
    ...(judged.before ?? []),
    ...(method === 'erc2612'
      ? erc2612Group({
          token,
          owner: a.from,
          spender: input.spender,
          value: a.value,
          deadline: a.validBefore,
          signature,
          to: a.to,
          amount,
        })
      : eip3009Group({
          token,
          from: a.from,
          to: a.to,
          value: a.value,
          validAfter: a.validAfter,
          validBefore: a.validBefore,
          nonce: a.nonce as Hex,
          signature,
        })),
  ]
  if (!input.simulate) return { ok: true, payer: a.from, group, auth: a }
  const nonceRead =
    method === 'erc2612' ? readCall.nonces(token, a.from) : readCall.authorizationState(token, a.from, a.nonce as Hex)
  const sim = await input.simulate([
    [readCall.balanceOf(token, a.from)],
    [nonceRead],
    [readCall.name(token)],
    [readCall.version(token)],
    group,
  ])
  const fail = (f: Failure): Rejected => ({ ok: false, payer: a.from, ...f })

  const nonceState = decode(method === 'erc2612' ? 'nonces' : 'authorizationState', sim.ok[1], sim.data[1])
  if (method === 'eip3009' && nonceState === true) {
    return fail({
      reason: reasons.evmNonceAlreadyUsed,
      message: `authorization nonce ${a.nonce} of ${a.from} was already used`,
    })
  }
  if (method === 'erc2612' && typeof nonceState === 'bigint' && nonceState !== BigInt(a.nonce)) {
    const used = BigInt(a.nonce) < nonceState
    return fail({
      reason: used ? reasons.evmNonceAlreadyUsed : reasons.evmNonceMismatch,
      message:
        `permit nonce ${a.nonce} ${used ? 'was already used' : 'is ahead of the token'}; ` +
        `the token's next nonce for ${a.from} is ${nonceState}`,
    })
  }
  const name = decode('name', sim.ok[2], sim.data[2])
  const version = decode('version', sim.ok[3], sim.data[3])
  if (typeof r.extra.name === 'string' && typeof name === 'string' && r.extra.name !== name) {
    return fail({
      reason: reasons.evmTokenNameMismatch,
      message: `extra.name '${r.extra.name}' is not the token's EIP-712 name '${name}'`,
    })
  }
  if (typeof r.extra.version === 'string' && typeof version === 'string' && r.extra.version !== version) {
    return fail({
      reason: reasons.evmTokenVersionMismatch,
      message: `extra.version '${r.extra.version}' is not the token's EIP-712 version '${version}'`,
    })
  }
  if (!sim.ok[4]) {
    const explained = explainRevert(sim.data[4])
    const balance = decode('balanceOf', sim.ok[0], sim.data[0])
    if (explained.reason === reasons.evmSimulationFailed && typeof balance === 'bigint' && balance < amount) {
      return fail({
        reason: reasons.evmInsufficientBalance,
        message: `${a.from} holds ${balance}, less than ${amount}`,
      })
    }
    return fail(explained)
  }
  return { ok: true, payer: a.from, group, auth: a }
}

/**
 * What makes an authorization unique on chain: settling the same key twice must be impossible.
 * `network` is the CAIP-2 id, so a v1 and a v2 request for one authorization share a key.
 */
export function replayKey(method: 'erc2612' | 'eip3009', network: string, token: Address, a: EvmAuthorization): string {
  const kind = method === 'erc2612' ? 'permit' : '3009'
  return `${network}:${token.toLowerCase()}:${a.from.toLowerCase()}:${kind}:${a.nonce.toLowerCase()}`
}
