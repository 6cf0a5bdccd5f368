import { reasons } from '../../../../src/sdk/x402/reasons.js'
import type { Checked, Purpose, Resolved } from '../../method.js'
import type { EvmRuntime } from '../runtime.js'
import { receiverDue, settlementCall } from './chain.js'
import { send, simulated } from './checks.js'
import { parseAddress } from './parse.js'

/**
 * Sweeps everything claimed for a receiver in one token to it, one transfer (permissionless on
 * chain, so no authorization is needed). Nothing due: success with no transaction and amount "0".
 */
export async function checkSettle(rt: EvmRuntime, p: Resolved, purpose: Purpose): Promise<Checked> {
  const receiver = parseAddress(p.payload.receiver)
  const token = parseAddress(p.payload.token)
  if (!receiver || !token)
    return { ok: false, reason: reasons.batchSettlePayload, message: 'a settle payload names receiver and token' }
  if (token.toLowerCase() !== p.requirements.asset.toLowerCase())
    return {
      ok: false,
      reason: reasons.batchTokenMismatch,
      message: `token ${token} is not the asset ${p.requirements.asset}`,
    }
  const due = await receiverDue(rt, receiver, token)
  if (due === 0n) return { ok: true, payer: '', execute: async () => ({ ok: true, tx: '', answer: { amount: '0' } }) }
  await rt.ready()
  const group = [settlementCall('settle', [receiver, token])]
  if (purpose !== 'settle-verified') {
    const refused = await simulated(rt, group)
    if (refused)
      return { ok: false, reason: reasons.batchSettleSimulationFailed, message: `the settle would revert: ${refused}` }
  }
  return {
    ok: true,
    payer: '',
    async execute() {
      const out = await send(rt, group, reasons.batchSettleTransactionFailed)
      // What this transaction swept: what was due when it was checked (a concurrent settle would have left nothing).
      return out.ok ? { ...out, answer: { amount: due.toString() } } : out
    },
  }
}
