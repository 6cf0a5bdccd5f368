import type { PrivateKeyAccount } from 'viem/accounts'
import { authorizerTypedData } from '../../../../src/sdk/x402/evm/auth-capture/authorizer.js'
import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Failure, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { escrowCall, paymentState, send, simulated } from './chain.js'
import { consented } from './consent.js'
import type { Lifecycle } from './lifecycle.js'
import { paymentInfoWire, signature } from './parse.js'

/**
 * `void`: returns the whole remaining hold to the payer (what a seller does when its handler
 * failed). Single-use by nature: a voided payment holds nothing, so a second void is refused.
 */
export async function checkVoid(
  rt: EvmRuntime,
  p: Resolved,
  l: Lifecycle,
  purpose: Purpose,
  authorizer: PrivateKeyAccount | undefined,
): Promise<Checked> {
  const { t, info, hash } = l
  const payer = info.payer
  const fail = (f: Failure): Checked => ({ ok: false, payer, ...f })
  if (p.payload.voidAuthorizerSignature !== undefined)
    return fail({
      reason: reasons.acVoidAuthorizerSignature,
      message: 'voidAuthorizerSignature belongs to a capture; a void signs authorizerSignature',
    })
  const sig = p.payload.authorizerSignature === undefined ? undefined : signature(p.payload.authorizerSignature)
  if (p.payload.authorizerSignature !== undefined && !sig)
    return fail({ reason: reasons.acPayloadFormat, message: 'authorizerSignature is not hex' })
  const refused = await consented(
    rt,
    p,
    t,
    authorizerTypedData(p.spec.chainId!, t.operator, { type: 'void', paymentInfoHash: hash }) as never,
    sig,
    authorizer,
  )
  if (refused) return fail(refused)
  const state = await paymentState(rt, t.deployment, info, p.spec.chainId!)
  if (state.capturableAmount === 0n)
    return fail({ reason: reasons.acZeroAuthorization, message: 'the payment holds nothing to void' })
  const group = [escrowCall(t.deployment, 'void', [info], 20_000n)]
  await rt.ready()
  if (purpose !== 'settle-verified') {
    const simRefused = await simulated(rt, group, 'void')
    if (simRefused) return fail(simRefused)
  }
  // The settled amount is what was captured (none here); what went back to the payer is `extra.voided`.
  const extra = {
    operation: 'void',
    paymentInfoHash: hash,
    paymentInfo: paymentInfoWire(info),
    voided: state.capturableAmount.toString(),
  }
  return {
    ok: true,
    payer,
    extra,
    async execute() {
      const out = await send(rt, group)
      return out.ok ? { ...out, answer: { amount: '0', extra } } : out
    },
  }
}
