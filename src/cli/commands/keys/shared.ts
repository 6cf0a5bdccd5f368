import { Command } from 'commander'
import { callJson, type CallOptions } from '../../../sdk/http.js'
import type { CliContext } from '../../context.js'
import { resolveOperatorToken } from '../../operator-token.js'

export type OperatorOptions = { operatorToken?: string; dataDir?: string }

export type PartnerKeyRecord = { id: string; hint: string; name: string; description: string | null; owner: string; state: string; createdAt: number }

/** A call to an operator route with the resolved operator token. */
export function operatorCall<T>(ctx: CliContext, opts: OperatorOptions, path: string, call: CallOptions = {}): Promise<T> {
  const token = resolveOperatorToken(opts, ctx.env)
  return callJson<T>(ctx.apiUrl, path, { ...call, headers: { authorization: `Bearer ${token}` } })
}

/** The flags every operator command takes. */
export function operatorCommand(name: string): Command {
  return new Command(name)
    .option('--operator-token <token>', 'operator token (default: PARX_OPERATOR_TOKEN, or the local data dir)')
    .option('--data-dir <dir>', 'data dir of a local daemon, to read its operator token')
}
