import { Command } from 'commander'
import type { CallOptions } from '../../../sdk/http.js'
import type { CliContext } from '../../context.js'
import { callDaemon } from '../../daemon-call.js'
import { resolveOperatorToken } from '../../operator-token.js'
import { readRuntimeFile } from '../../runtime-file.js'

export type OperatorOptions = { operatorToken?: string; dataDir?: string }

export type PartnerKeyRecord = {
  id: string
  hint: string
  name: string
  description: string | null
  owner: string | null
  state: string
  createdAt: number
}

/** The operator token for these options, reading the running daemon's data dir when nothing else names one. */
export function operatorToken(ctx: CliContext, opts: OperatorOptions): string {
  return resolveOperatorToken(opts, ctx.env, readRuntimeFile(ctx.env)?.dataDir)
}

/** A call to an operator route with the resolved operator token. */
export function operatorCall<T>(
  ctx: CliContext,
  opts: OperatorOptions,
  path: string,
  call: CallOptions = {},
): Promise<T> {
  const token = operatorToken(ctx, opts)
  return callDaemon<T>(ctx, path, { ...call, headers: { authorization: `Bearer ${token}` } })
}

/** The flags every operator command takes. */
export function operatorCommand(name: string): Command {
  return new Command(name)
    .option('--operator-token <token>', 'operator token (default: PARX_OPERATOR_TOKEN, or the local data dir)')
    .option('--data-dir <dir>', 'data dir of a local daemon, to read its operator token')
}
