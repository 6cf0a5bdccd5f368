import type { Group } from '../../../src/sdk/x402/evm/executor.js'
import { type Reason, reasons } from '../../../src/sdk/x402/reasons.js'
import { InclusionUnknown } from '../../chains/evm/tx-sender.js'
import type { Executed } from '../method.js'
import type { EvmRuntime } from './runtime.js'

/**
 * Settles one checked payment group through the runtime's batched executor and says what became
 * of it; `explain` turns a group's revert data into the method's reason.
 */
export async function executeGroup(
  rt: EvmRuntime,
  group: Group,
  explain: (revert: `0x${string}` | undefined) => { reason: Reason; message: string },
  simulationFailed: Reason,
): Promise<Executed> {
  let out
  try {
    out = await rt.submit(group)
  } catch (e) {
    if (e instanceof InclusionUnknown)
      return { ok: false, pending: true, tx: e.hash, reason: reasons.settlementPending, message: e.message }
    return { ok: false, reason: reasons.unexpectedSettleError, message: (e as Error).message }
  }
  if (out.ok) return { ok: true, tx: out.tx }
  if (out.batchReverted)
    return {
      ok: false,
      tx: out.tx,
      reason: reasons.evmTransactionFailed,
      message: `the settlement transaction ${out.tx} reverted`,
    }
  const why = explain(out.revert)
  // A mined failure the simulation did not foresee: the chain moved between check and settle.
  const reason = why.reason === simulationFailed ? reasons.evmTransactionFailed : why.reason
  return { ok: false, tx: out.tx, reason, message: why.message }
}
