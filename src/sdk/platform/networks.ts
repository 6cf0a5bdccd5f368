import { z } from 'zod'
import type { ErrorCode } from '../../errors/codes.js'
import { type NetworkSpec, networks, TOKEN_A, TOKEN_B, type TokenSpec, USDC } from '../../networks/registry.js'

/**
 * What the platform offers on each registry network, read from the registry so no route spells a
 * network or token: agents live on networks with `aa` (sends are sponsored user operations) or
 * `direct` (sends are plain transfers; docs/platform-api.md "Networks and tokens" allows only TOKEN_A there).
 */
export type SendMethod = 'userOperation' | 'transfer'

/** Networks an agent may be created on. */
export function agentNetworks(): NetworkSpec[] {
  return Object.values(networks).filter(
    (n) => n.family === 'evm' && (n.features.includes('aa') || n.features.includes('direct')),
  )
}

export function sendMethodOf(n: NetworkSpec): SendMethod {
  return n.features.includes('aa') ? 'userOperation' : 'transfer'
}

/**
 * Tokens an agent on this network may send and be paid in: every registry token on AA networks, TOKEN_A only on direct
 * ones.
 */
export function sendableTokens(n: NetworkSpec): TokenSpec[] {
  return n.features.includes('aa') ? n.tokens : n.tokens.filter((t) => t.symbol === TOKEN_A)
}

/** Tokens an endpoint on this network may be priced in (the facilitator's x402 tokens there). */
export function priceableTokens(n: NetworkSpec): TokenSpec[] {
  return n.features.includes('x402') ? n.tokens : []
}

/**
 * docs/platform-api.md "Networks and tokens": USDC->TOKEN_A, TOKEN_A->TOKEN_B, TOKEN_B->TOKEN_A, on Base networks only.
 */
export const SWAP_PAIRS: readonly (readonly [string, string])[] = [
  [USDC, TOKEN_A],
  [TOKEN_A, TOKEN_B],
  [TOKEN_B, TOKEN_A],
]

export function canSwap(n: NetworkSpec): boolean {
  return n.features.includes('aa') && n.features.includes('swap')
}

/** A zod issue that carries the error code the server answers with (see parse.ts). */
export function issue(
  ctx: z.RefinementCtx,
  path: (string | number)[],
  message: string,
  code: ErrorCode = 'BAD_REQUEST',
) {
  ctx.addIssue({ code: z.ZodIssueCode.custom, path, message, params: { code } })
}

/**
 * Checks a token symbol and amount against the registry for one network: the token exists there,
 * is allowed for this use, and the amount has no more decimals than the token. Adds issues; returns
 * the token when all is well.
 */
export function checkTokenAmount(
  ctx: z.RefinementCtx,
  n: NetworkSpec,
  allowed: TokenSpec[],
  fields: { token: string; amount?: string },
  paths: { token: string; amount: string },
  use: string,
): TokenSpec | undefined {
  const t = n.tokens.find((x) => x.symbol === fields.token)
  if (!t) {
    const why = fields.token === TOKEN_B ? ` (${TOKEN_B}, TOKEN_B, exists on Base networks only)` : ''
    issue(
      ctx,
      [paths.token],
      `'${fields.token}' is not a token of ${n.key}${why}; ${n.key} has ` +
        `${allowed.map((x) => x.symbol).join(', ') || 'none'} for ${use}`,
      'UNKNOWN_TOKEN',
    )
    return undefined
  }
  if (!allowed.includes(t)) {
    issue(
      ctx,
      [paths.token],
      `${t.symbol} cannot be used for ${use} on ${n.key}; use ` +
        `${allowed.map((x) => x.symbol).join(', ') || 'another network'}`,
      'UNKNOWN_TOKEN',
    )
    return undefined
  }
  if (fields.amount !== undefined && (fields.amount.split('.')[1] ?? '').replace(/0+$/, '').length > t.decimals) {
    issue(ctx, [paths.amount], `has more than ${t.decimals} decimal places, the precision of ${t.symbol} on ${n.key}`)
    return undefined
  }
  return t
}
