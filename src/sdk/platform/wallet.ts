import { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import { networks, TOKEN_A } from '../../networks/registry.js'
import { decimalAmount, evmAddress, isoTime, tokenSymbol, txHash, uuid } from './fields.js'
import { canSwap, checkTokenAmount, issue, SWAP_PAIRS, sendableTokens } from './networks.js'

/**
 * GET /api/agents/:id/balance: every token of the agent's network, and the native coin (0 on AA networks, by design).
 */
export const balance = z.object({
  agentId: uuid,
  network: z.string(),
  wallet: evmAddress,
  tokens: z.array(z.object({ symbol: z.string(), decimals: z.number().int(), amount: z.string(), raw: z.string() })),
  native: z.object({ symbol: z.string(), amount: z.string(), raw: z.string() }),
})
export type Balance = z.infer<typeof balance>

/** POST /api/agents/:id/send, before the agent's network is known (what a client can check alone). */
export const sendBody = z
  .object({
    to: evmAddress,
    amount: decimalAmount,
    /** Default TOKEN_A (docs/platform-api.md "POST /api/agents/:id/send"). */
    token: tokenSymbol.default(TOKEN_A),
    /** The approval an earlier APPROVAL_REQUIRED named, once approved: used once, for this same send only. */
    approvalId: uuid.optional(),
  })
  .strict()
export type SendBody = z.input<typeof sendBody>

/** The same body checked against the agent's network: token offered there, amount within its decimals. */
export function sendBodyFor(networkKey: string) {
  const n = networks[networkKey]
  if (!n) throw new BaseError('NETWORK_UNSUPPORTED', `no network ${networkKey} in the registry`)
  return sendBody.superRefine((b, ctx) => {
    checkTokenAmount(ctx, n, sendableTokens(n), b, { token: 'token', amount: 'amount' }, 'sends')
  })
}

/** What a send did. Persisted before it is answered; `id` finds it again. */
export const sendResult = z.object({
  id: uuid,
  agentId: uuid,
  network: z.string(),
  method: z.enum(['userOperation', 'transfer']),
  token: z.string(),
  amount: z.string(),
  from: evmAddress,
  to: evmAddress,
  /** The transaction that moved the tokens (the bundle on AA networks). */
  transaction: txHash,
  /** The ERC-4337 user operation hash on AA networks; null for a direct transfer. */
  userOperation: txHash.nullable(),
  status: z.literal('confirmed'),
  createdAt: isoTime,
})
export type SendResult = z.infer<typeof sendResult>

/** POST /api/agents/:id/swap (docs/platform-api.md "POST /api/agents/:id/swap"): AA Base networks only, three pairs. */
export const swapBody = z.object({ from: tokenSymbol, to: tokenSymbol, amount: decimalAmount }).strict()
export type SwapBody = z.input<typeof swapBody>

export function swapBodyFor(networkKey: string) {
  const n = networks[networkKey]
  if (!n) throw new BaseError('NETWORK_UNSUPPORTED', `no network ${networkKey} in the registry`)
  return swapBody.superRefine((b, ctx) => {
    if (!canSwap(n))
      return issue(ctx, [], `agents on ${n.key} cannot swap; swaps are on Base networks only`, 'NETWORK_UNSUPPORTED')
    if (!SWAP_PAIRS.some(([f, t]) => f === b.from && t === b.to)) {
      return issue(
        ctx,
        ['to'],
        `${b.from} -> ${b.to} is not a swap pair; use ${SWAP_PAIRS.map(([f, t]) => `${f}->${t}`).join(', ')}`,
        'UNSUPPORTED_PAIR',
      )
    }
    checkTokenAmount(
      ctx,
      n,
      n.tokens,
      { token: b.from, amount: b.amount },
      { token: 'from', amount: 'amount' },
      'swaps',
    )
  })
}

export const swapResult = z.object({
  id: uuid,
  agentId: uuid,
  network: z.string(),
  from: z.object({ token: z.string(), amount: z.string() }),
  to: z.object({ token: z.string(), amount: z.string() }),
  /** The swap API's relayed transaction (gasless for the agent, like any partner's swap). */
  transaction: txHash,
  status: z.literal('included'),
  createdAt: isoTime,
})
export type SwapResult = z.infer<typeof swapResult>
