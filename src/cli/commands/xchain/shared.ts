import type { CliContext } from '../../context.js'

export type PartnerOptions = { apiKey?: string }

/**
 * The partner key for K routes: --api-key, else PARX_API_KEY; none sends none (a local daemon may not enforce keys, and
 * a 401 says what to do).
 */
export function partnerHeaders(ctx: CliContext, opts: PartnerOptions): Record<string, string> {
  const key = opts.apiKey ?? ctx.env.PARX_API_KEY
  return key ? { 'x-api-key': key } : {}
}

export const apiKeyHelp = 'partner API key (default PARX_API_KEY; an operator creates one with `parx keys create`)'

/** "0x1234abcd…9f0e" for a line a person reads; --output json always has the whole value. */
export const short = (s: string) => (s.length > 20 ? `${s.slice(0, 10)}…${s.slice(-6)}` : s)

/** Unix seconds as an ISO time a person reads. */
export const when = (unix: number) => new Date(unix * 1000).toISOString().replace('.000Z', 'Z')
