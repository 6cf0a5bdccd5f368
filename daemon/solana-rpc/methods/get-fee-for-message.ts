import { z } from 'zod'
import { invalidParams } from '../rpc-error.js'
import { decodeWireMessage } from '../wire-transaction.js'
import { contextConfig, contextSlot, decodeBinary, defineMethod, positional, withContext } from './define.js'

export const getFeeForMessage = defineMethod({
  method: 'getFeeForMessage',
  params: positional(z.string(), contextConfig.optional()),
  handler: ([data, config], ctx) => {
    const slot = contextSlot(ctx, config)
    const message = decodeWireMessage(decodeBinary(data, 'base64'))
    if (!message) throw invalidParams('invalid message')
    return withContext(slot, ctx.svm.feeForMessage(message))
  },
})
