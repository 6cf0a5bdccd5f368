import { defineMethod, positional } from './define.js'

/** In-process cluster: if this answers at all, it is healthy. */
export const getHealth = defineMethod({
  method: 'getHealth',
  params: positional(),
  handler: () => 'ok',
})
