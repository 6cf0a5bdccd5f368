import { RpcCode, RpcError } from '../rpc-error.js'
import type { RpcContext } from './define.js'

/**
 * Refuses, as a node does, a slot before the cluster's genesis or one not produced yet. Every slot
 * in between produced a block (the embedded cluster never skips), so any other slot has one.
 */
export function producedSlot(ctx: RpcContext, slot: number): number {
  const current = ctx.svm.tick()
  const first = ctx.svm.clock.firstSlot()
  if (slot > current) throw new RpcError(RpcCode.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`)
  if (slot < first)
    throw new RpcError(
      RpcCode.BLOCK_CLEANED_UP,
      `Block ${slot} cleaned up, does not exist on node. First available block: ${first}`,
    )
  return slot
}
