import { SOLANA_CORE_VERSION } from '../genesis.js'
import { defineMethod, positional } from './define.js'

export const getVersion = defineMethod({
  method: 'getVersion',
  params: positional(),
  handler: () => ({ 'solana-core': SOLANA_CORE_VERSION, 'feature-set': 0 }),
})
