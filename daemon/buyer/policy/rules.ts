import { BaseError } from '../../../src/errors/index.js'
import { NO_RULES, type PayeeRules, type RefusedBy, type RuleName } from '../../../src/sdk/platform/policy.js'

/**
 * The payee and network rules as one pure decision (issue 41 item 2), called by pay, send and swap
 * before anything is reserved or signed. Both scopes apply at once: the user's rules (all its
 * agents) and the agent's own. Deny wins over allow in either scope; an allow-list that is set and
 * does not match refuses, even when the other scope's allow-list matches (each owner narrows, none
 * widens). Order of the checks (the first refusal is reported): hosts, payTo, network, token; in
 * each, the deny-lists (user, then agent), then the allow-lists (user, then agent).
 */
export type ScopedRules = { agent: PayeeRules; user: PayeeRules }

/** Neither scope sets a list. */
export const NO_SCOPED_RULES: ScopedRules = { agent: NO_RULES, user: NO_RULES }

/** What one spend would pay: `host` for pay only; `tokens` every token it moves (swap: both sides). */
export type Payee = {
  host?: string
  payTo?: string
  network?: { key: string; caip2: string }
  tokens?: { symbol: string; address?: string }[]
}

export type Refusal = RefusedBy & { rule: RuleName }

/**
 * `*.example.com` matches every sub-domain of example.com at any depth, NOT example.com itself
 * (the same as `allowedHosts` has always done: list both to mean both). Anything else matches exactly.
 */
export function hostMatches(pattern: string, host: string): boolean {
  const h = host.toLowerCase()
  const p = pattern.toLowerCase()
  return p.startsWith('*.') ? h.endsWith(p.slice(1)) : h === p
}

/** EVM addresses compare case-insensitively (checksums are a spelling); anything else (Solana base58) exactly. */
export function payToMatches(entry: string, payTo: string): boolean {
  return entry.startsWith('0x') && payTo.startsWith('0x')
    ? entry.toLowerCase() === payTo.toLowerCase()
    : entry === payTo
}

/** An entry names a network by its parx name or its CAIP-2 id. */
export function networkMatches(entry: string, n: { key: string; caip2: string }): boolean {
  return entry === n.key || entry === n.caip2
}

/** A token entry is its symbol (any case) or its contract address (any case). */
export function tokenMatches(entry: string, t: { symbol: string; address?: string }): boolean {
  if (entry.startsWith('0x')) return t.address !== undefined && entry.toLowerCase() === t.address.toLowerCase()
  return entry.toUpperCase() === t.symbol.toUpperCase()
}

type Dimension = { deny: RuleName; allow: RuleName; what: string; value: string; matches(entry: string): boolean }

function dimensions(p: Payee): Dimension[] {
  const d: Dimension[] = []
  if (p.host !== undefined)
    d.push({
      deny: 'denyHosts',
      allow: 'allowHosts',
      what: 'host',
      value: p.host,
      matches: (e) => hostMatches(e, p.host!),
    })
  if (p.payTo !== undefined)
    d.push({
      deny: 'denyPayTo',
      allow: 'allowPayTo',
      what: 'payTo',
      value: p.payTo,
      matches: (e) => payToMatches(e, p.payTo!),
    })
  if (p.network !== undefined)
    d.push({
      deny: 'denyNetworks',
      allow: 'allowNetworks',
      what: 'network',
      value: p.network.key,
      matches: (e) => networkMatches(e, p.network!),
    })
  for (const t of p.tokens ?? [])
    d.push({
      deny: 'denyTokens',
      allow: 'allowTokens',
      what: 'token',
      value: t.symbol,
      matches: (e) => tokenMatches(e, t),
    })
  return d
}

const owner = (scope: 'agent' | 'user') => (scope === 'agent' ? "this agent's" : "its user's")

/** The first rule that refuses this payee, or null when every rule allows it. */
export function refusalOf(rules: ScopedRules, p: Payee): Refusal | null {
  for (const d of dimensions(p)) {
    const value = d.value
    for (const scope of ['user', 'agent'] as const) {
      const deny = rules[scope][d.deny]
      if (deny?.some((e) => d.matches(e))) {
        return {
          rule: d.deny,
          scope,
          value,
          message:
            `${d.what} ${value} is on ${owner(scope)} ${d.deny} list; nothing was ` +
            `signed. Pay another ${d.what}, or ask the owner to change the ${scope} policy`,
        }
      }
    }
    for (const scope of ['user', 'agent'] as const) {
      const allow = rules[scope][d.allow]
      if (allow !== null && !allow.some((e) => d.matches(e))) {
        return {
          rule: d.allow,
          scope,
          value,
          message:
            `${d.what} ${value} is not on ${owner(scope)} ${d.allow} list (${allow.join(', ') || 'empty'}); ` +
            `nothing was signed. Use an allowed ${d.what}, or ask the owner to change the ${scope} policy`,
        }
      }
    }
  }
  return null
}

/**
 * LIMIT_EXCEEDED for a refusal: the one code agents branch on for every guard rail, with fields
 * naming the rule. The agent's host allow-list keeps `limit: 'allowedHosts'` (its name since before
 * the rules, which clients may test for); every other rule is `limit: <rule>`.
 */
export function refusalError(r: Refusal, amountUsd: string | null = null): BaseError {
  const limit = r.rule === 'allowHosts' && r.scope === 'agent' ? 'allowedHosts' : r.rule
  return new BaseError('LIMIT_EXCEEDED', r.message, {
    fields: { limit, rule: r.rule, scope: r.scope, value: r.value, limitUsd: null, amountUsd, remainingUsd: null },
  })
}

/** Throws the refusal's LIMIT_EXCEEDED, if any. */
export function enforce(rules: ScopedRules, p: Payee, amountUsd: string | null = null): void {
  const r = refusalOf(rules, p)
  if (r) throw refusalError(r, amountUsd)
}
