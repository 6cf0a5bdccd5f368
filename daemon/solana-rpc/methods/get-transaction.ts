import { z } from 'zod'
import { RpcCode, RpcError } from '../rpc-error.js'
import { renderTransaction } from '../transaction-json.js'
import { commitment, defineMethod, positional, signature } from './define.js'

const config = z.object({
  encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).optional(),
  commitment: commitment.optional(),
  maxSupportedTransactionVersion: z.number().int().nonnegative().optional(),
})

export const getTransaction = defineMethod({
  method: 'getTransaction',
  params: positional(signature, z.union([config, z.enum(['json', 'jsonParsed', 'base64', 'base58'])]).optional()),
  handler: ([sig, raw], ctx) => {
    // The legacy form passes the encoding itself as the second param.
    const cfg = typeof raw === 'string' ? { encoding: raw } : raw
    const record = ctx.svm.txs.get(sig)
    if (!record) return null
    const maxVersion = cfg?.maxSupportedTransactionVersion
    if (record.meta.version === 0 && maxVersion === undefined) {
      throw new RpcError(
        RpcCode.UNSUPPORTED_TRANSACTION_VERSION,
        'Transaction version (0) is not supported by the requesting client. ' +
          'Please try the request again with the following ' +
          'configuration parameter: "maxSupportedTransactionVersion": 0',
      )
    }
    return renderTransaction(record, cfg?.encoding ?? 'json', maxVersion !== undefined)
  },
})
