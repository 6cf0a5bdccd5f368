import { methods, type SupportedResponse } from '../types.js'
import type { Offer } from './offers.js'

const KEY = 'eip2612GasSponsoring'
const hex = (n: number) => `^0x[a-fA-F0-9]{${n}}$`
const digits = { type: 'string', pattern: '^[0-9]+$' }

/**
 * The `extensions` of a 402 that offers permit2 when the facilitator sponsors EIP-2612 permits for
 * Permit2 (its /supported lists `eip2612GasSponsoring`): declared as the reference's
 * `declareEip2612GasSponsoringExtension()` does, so a stock client whose payer never approved
 * Permit2 signs an EIP-2612 permit instead of failing for want of gas. Undefined otherwise.
 */
export function gasSponsoringExtensions(
  offers: Offer[],
  supported: SupportedResponse,
): Record<string, unknown> | undefined {
  if (!supported.extensions?.includes(KEY) || !offers.some((o) => o.v2.extra.assetTransferMethod === methods.permit2))
    return undefined
  return {
    [KEY]: {
      info: {
        description: 'The facilitator accepts EIP-2612 gasless Permit to `Permit2` canonical contract.',
        version: '1',
      },
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          from: { type: 'string', pattern: hex(40) },
          asset: { type: 'string', pattern: hex(40) },
          spender: { type: 'string', pattern: hex(40) },
          amount: digits,
          nonce: digits,
          deadline: digits,
          signature: { type: 'string', pattern: '^0x[a-fA-F0-9]+$' },
          version: { type: 'string' },
        },
        required: ['from', 'asset', 'spender', 'amount', 'nonce', 'deadline', 'signature', 'version'],
      },
    },
  }
}
