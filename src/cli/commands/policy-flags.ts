import type { Command } from 'commander'
import type { PayeeRules, SetPayeeRulesBody } from '../../sdk/platform/policy.js'
import { type CliContext, label } from '../context.js'
import { usageError } from '../errors.js'

/**
 * The rule flags shared by `parx agent policy` and `parx user policy`: one flag per list
 * (`--allow-host`, `--deny-payto`, …), repeatable and comma-separated; `none` clears that list;
 * `--clear` clears every list first. Checked with the wire contract's schema before anything is sent,
 * loaded only then: a command's definition loads no zod (test/cli-build.test.ts).
 */
export type RuleFlags = {
  allowHost?: string[]
  denyHost?: string[]
  allowPayto?: string[]
  denyPayto?: string[]
  allowNetwork?: string[]
  denyNetwork?: string[]
  allowToken?: string[]
  denyToken?: string[]
  clear?: boolean
}

const FLAGS: [keyof RuleFlags, keyof PayeeRules, string, string][] = [
  ['allowHost', 'allowHosts', '--allow-host', 'hosts pay may pay (*.example.com: its sub-domains, not example.com)'],
  ['denyHost', 'denyHosts', '--deny-host', 'hosts pay never pays'],
  ['allowPayto', 'allowPayTo', '--allow-payto', 'payTo addresses pay and send may pay (EVM any case, Solana exact)'],
  ['denyPayto', 'denyPayTo', '--deny-payto', 'payTo addresses never paid'],
  ['allowNetwork', 'allowNetworks', '--allow-network', 'networks (base or eip155:8453) pay, send and swap may use'],
  ['denyNetwork', 'denyNetworks', '--deny-network', 'networks never used'],
  ['allowToken', 'allowTokens', '--allow-token', 'tokens (symbol or address) pay, send and swap may use'],
  ['denyToken', 'denyTokens', '--deny-token', 'tokens never used'],
]

const collect = (v: string, prev: string[] = []) => [
  ...prev,
  ...v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
]

export function addRuleFlags(cmd: Command): Command {
  for (const [, , flag, what] of FLAGS)
    cmd.option(`${flag} <list>`, `${what}; comma-separated, repeatable; none clears the list`, collect)
  return cmd.option('--clear', 'clear every list first')
}

/** The body for the set routes, or undefined when no rule flag was given (show only). */
export async function ruleBody(o: RuleFlags): Promise<SetPayeeRulesBody | undefined> {
  const body: Record<string, unknown> = {}
  for (const [opt, rule, flag] of FLAGS) {
    const v = o[opt] as string[] | undefined
    if (v === undefined) continue
    if (v.includes('none') && v.length > 1) throw usageError(`${flag} none clears the list; give it alone`)
    body[rule] = v[0] === 'none' ? null : v
  }
  if (o.clear) body.clear = true
  if (Object.keys(body).length === 0) return undefined
  const { setPayeeRulesBody } = await import('../../sdk/platform/policy.js')
  const checked = setPayeeRulesBody.safeParse(body)
  if (!checked.success) {
    const i = checked.error.issues[0]!
    const flag = FLAGS.find(([, rule]) => rule === i.path[0])?.[2] ?? '--clear'
    throw usageError(
      `${flag} ${i.path.length > 1 ? `'${(body[i.path[0] as string] as string[])[i.path[1] as number]}' ` : ''}` +
        i.message,
    )
  }
  return checked.data
}

export function ruleLines(r: PayeeRules, ctx: CliContext, prefix = ''): string[] {
  return FLAGS.map(([, k]) => k)
    .filter((k) => r[k] !== null)
    .map((k) => `${label(ctx, `${prefix}${k}`)}${r[k]!.length ? r[k]!.join(', ') : '(empty: refuses all)'}`)
}
