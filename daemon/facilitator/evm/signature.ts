import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  parseAbi,
  parseErc6492Signature,
  recoverAddress,
  size,
} from 'viem'
import type { Failure } from '../../../src/sdk/x402/evm/authorization.js'
import type { ExecCall } from '../../../src/sdk/x402/evm/executor.js'
import type { Reason } from '../../../src/sdk/x402/reasons.js'
import { reasons } from '../../../src/sdk/x402/reasons.js'
import type { EvmRuntime } from './runtime.js'

const erc1271Abi = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)'])
const MAGIC = '0x1626ba7e'
/** EIP-7702: an account delegating to `addr` has the code 0xef0100 || addr. */
const DELEGATION_PREFIX = '0xef0100'

/** What kind of payer signed, as the chain will judge it. */
export type PayerKind = 'eoa' | 'eip7702' | 'contract' | 'counterfactual'

export type SignatureVerdict =
  | { ok: true; kind?: PayerKind; signature: Hex; deploy?: ExecCall }
  | ({ ok: false; kind?: PayerKind; payer: string } & Failure)

export type SignatureInput = {
  payer: Address
  /**
   * The EIP-712 digest the token, Permit2 or the proxy will check; computed only when needed (a lazy verdict on a plain
   * signature needs none).
   */
  digest: () => Hex
  /** As sent; may be ERC-6492-wrapped. */
  signature: Hex
  /** ERC-6492 factories this facilitator will call to deploy a counterfactual wallet. */
  allowedFactories: readonly Address[]
  /** The method's reason for a signature that does not hold. */
  invalid: Reason
  /**
   * Leave a plain (unwrapped) signature to the simulation of the payment, where the token or
   * Permit2 judges it exactly as it will on chain: no ecrecover here (a few ms of CPU) and no
   * round trip. The verdict is then `ok` with the signature as sent; call again without `lazy`
   * to name the cause of a failed simulation.
   */
  lazy?: boolean
}

/** Gas a counterfactual wallet's deployment may take beyond its group's (Kernel, Safe and SimpleAccount fit). */
const DEPLOY_GAS = 500_000n

/**
 * Judges a payer's signature the way the token (OpenZeppelin's and FiatToken v2.2's
 * SignatureChecker) and Permit2 will on chain: an account without code by ecrecover; an EIP-7702
 * account by ecrecover too (its delegate, e.g. Simple7702Account, answers ERC-1271 for its own
 * key, which is what the chain then asks); a deployed contract wallet by ERC-1271
 * `isValidSignature`; a counterfactual one (ERC-6492 wrapper, no code yet) only when its factory
 * is allow-listed, by simulating the factory call then `isValidSignature` in one eth_call. The
 * verdict's `signature` is the one to put on chain (unwrapped) and `deploy` the factory call to
 * run before it.
 *
 * A plain signature that ecrecovers to the payer is accepted without reading its code: only an
 * EOA or an EIP-7702 account can hold that key, and both are judged by ecrecover, so the answer is
 * the same and the common payment costs no round trip (the simulation that follows still asks the
 * chain). Anything else is routed by the code read from the chain.
 */
export async function checkPayerSignature(rt: EvmRuntime, x: SignatureInput): Promise<SignatureVerdict> {
  const wrapped = parseErc6492Signature(x.signature)
  const inner = wrapped.signature
  const isWrapped = wrapped.address !== undefined
  if (x.lazy && !isWrapped) return { ok: true, signature: inner }
  const digest = x.digest()
  const ecdsa = size(inner) === 65 || size(inner) === 64
  const recovered = ecdsa ? await recoverAddress({ hash: digest, signature: inner }).catch(() => undefined) : undefined
  if (!isWrapped && recovered && isAddressEqual(recovered, x.payer)) return { ok: true, kind: 'eoa', signature: inner }
  const code = ((await rt.chain.client.request({ method: 'eth_getCode', params: [x.payer, 'latest'] })) ?? '0x') as Hex
  const bad = (kind: PayerKind, why: string): SignatureVerdict => ({
    ok: false,
    kind,
    reason: x.invalid,
    message: `the signature is not ${x.payer}'s: ${why}`,
    payer: x.payer,
  })

  if (code === '0x' && wrapped.address && wrapped.data) {
    const factory = wrapped.address
    if (!x.allowedFactories.some((f) => isAddressEqual(f, factory))) {
      return {
        ok: false,
        kind: 'counterfactual',
        reason: reasons.eip6492FactoryNotAllowed,
        message:
          `${x.payer} is not deployed and its ERC-6492 factory ${factory} ` + "is not on this facilitator's allow-list",
        payer: x.payer,
      }
    }
    const deploy: ExecCall = { target: factory, data: wrapped.data, gas: DEPLOY_GAS }
    const sim = await rt.simulate([[deploy, isValidSignatureCall(x.payer, digest, inner)]])
    if (!sim.ok[0])
      return bad(
        'counterfactual',
        'deploying it with its ERC-6492 factory call failed, or its wallet rejected the signature',
      )
    return isMagic(sim.data[0])
      ? { ok: true, kind: 'counterfactual', signature: inner, deploy }
      : bad('counterfactual', 'its wallet, once deployed, rejects it (ERC-1271)')
  }
  if (code === '0x' || code.toLowerCase().startsWith(DELEGATION_PREFIX)) {
    const kind: PayerKind = code === '0x' ? 'eoa' : 'eip7702'
    if (!ecdsa)
      return bad(kind, `${x.payer} has no contract code, so it signs with ECDSA (65 bytes), not ${size(inner)} bytes`)
    return recovered && isAddressEqual(recovered, x.payer)
      ? { ok: true, kind, signature: inner }
      : bad(kind, `it recovers to ${recovered ?? 'no address'}`)
  }
  const sim = await rt.simulate([[isValidSignatureCall(x.payer, digest, inner)]])
  return sim.ok[0] && isMagic(sim.data[0])
    ? { ok: true, kind: 'contract', signature: inner }
    : bad('contract', 'its wallet rejects it (ERC-1271 isValidSignature)')
}

const isValidSignatureCall = (wallet: Address, digest: Hex, signature: Hex): ExecCall => ({
  target: wallet,
  data: encodeFunctionData({ abi: erc1271Abi, functionName: 'isValidSignature', args: [digest, signature] }),
})

/** The ABI-encoded bytes4 return starts with the magic value. */
const isMagic = (data: Hex | undefined) => typeof data === 'string' && data.toLowerCase().startsWith(MAGIC)
