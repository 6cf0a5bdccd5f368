import { LOCAL_SOLANA_GENESIS_HASH } from '../genesis.js'
import { defineMethod, positional } from './define.js'

export const getGenesisHash = defineMethod({
  method: 'getGenesisHash',
  params: positional(),
  handler: (_params, ctx) => ctx.genesisHash ?? LOCAL_SOLANA_GENESIS_HASH,
})
