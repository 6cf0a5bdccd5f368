import { z } from 'zod'
import { contextConfig, defineMethod, positional } from './define.js'

// An account's data may not exceed 10 MiB.
const MAX_PERMITTED_DATA_LENGTH = 10 * 1024 * 1024

export const getMinimumBalanceForRentExemption = defineMethod({
  method: 'getMinimumBalanceForRentExemption',
  params: positional(z.number().int().nonnegative().max(MAX_PERMITTED_DATA_LENGTH), contextConfig.optional()),
  handler: ([dataLength], ctx) => ctx.svm.minimumBalanceForRentExemption(dataLength),
})
