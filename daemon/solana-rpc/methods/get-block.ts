import { z } from 'zod'
import { RpcCode, RpcError } from '../rpc-error.js'
import { renderTransaction } from '../transaction-json.js'
import { producedSlot } from './block-range.js'
import { commitment, defineMethod, positional } from './define.js'

const config = z.object({
  encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
  transactionDetails: z.enum(['full', 'accounts', 'signatures', 'none']).optional(),
  rewards: z.boolean().optional(),
  commitment: commitment.optional(),
  maxSupportedTransactionVersion: z.number().int().nonnegative().optional(),
})

/**
 * A produced block: its hash, parent, time and the transactions executed in its slot, in order,
 * from the recorded history (every slot produced a block, most of them empty). One validator and
 * no stake: no rewards.
 */
export const getBlock = defineMethod({
  method: 'getBlock',
  params: positional(
    z.number().int().nonnegative(),
    z.union([config, z.enum(['json', 'jsonParsed', 'base64', 'base58'])]).optional(),
  ),
  handler: ([requested, raw], ctx) => {
    const cfg = typeof raw === 'string' ? { encoding: raw } : raw
    const slot = producedSlot(ctx, requested)
    const { clock } = ctx.svm
    const first = clock.firstSlot()
    const block: Record<string, unknown> = {
      blockHeight: clock.blockHeight(slot),
      blockTime: clock.unixTimestamp(slot),
      blockhash: clock.blockhash(slot),
      parentSlot: slot === first ? slot : slot - 1,
      previousBlockhash: clock.blockhash(slot === first ? slot : slot - 1),
    }
    const details = cfg?.transactionDetails ?? 'full'
    const records = details === 'none' ? [] : ctx.svm.txs.inSlots(slot, slot)
    const maxVersion = cfg?.maxSupportedTransactionVersion
    if (details !== 'signatures' && maxVersion === undefined && records.some((r) => r.meta.version === 0)) {
      throw new RpcError(
        RpcCode.UNSUPPORTED_TRANSACTION_VERSION,
        'Transaction version (0) is not supported by the requesting client. ' +
          'Please try the request again with the following ' +
          'configuration parameter: "maxSupportedTransactionVersion": 0',
      )
    }
    if (details === 'signatures') block.signatures = records.map((r) => r.signature)
    if (details === 'full') {
      block.transactions = records.map((r) => {
        const {
          slot: _slot,
          blockTime: _time,
          ...entry
        } = renderTransaction(r, cfg?.encoding ?? 'json', maxVersion !== undefined)
        return entry
      })
    }
    if (details === 'accounts') {
      block.transactions = records.map((r) => {
        const parsed = renderTransaction(r, 'jsonParsed', maxVersion !== undefined)
        const tx = parsed.transaction as { signatures: string[]; message: { accountKeys: unknown[] } }
        const {
          innerInstructions: _i,
          logMessages: _l,
          returnData: _r,
          computeUnitsConsumed: _c,
          ...meta
        } = parsed.meta as Record<string, unknown>
        return {
          ...(maxVersion !== undefined ? { version: r.meta.version } : {}),
          transaction: { signatures: tx.signatures, accountKeys: tx.message.accountKeys },
          meta,
        }
      })
    }
    if (cfg?.rewards ?? true) block.rewards = []
    return block
  },
})
