import type { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { evmAddress } from '../../validate.js'
import { type OperatorOptions, operatorCall, operatorCommand, type PartnerKeyRecord } from './shared.js'

export type ListKeysOptions = OperatorOptions & { owner?: string }

export async function run(opts: ListKeysOptions, ctx: CliContext) {
  if (opts.owner !== undefined) evmAddress(opts.owner, '--owner')
  const result = await operatorCall<{ keys: PartnerKeyRecord[] }>(ctx, opts, '/api/operator/keys', {
    query: { owner: opts.owner },
  })
  emit(ctx, result, () =>
    result.keys.length === 0
      ? ['No partner keys yet. Create one with `parx keys create --name <name>`.']
      : result.keys.map((k) => `${k.id}  ${k.hint}  ${k.state.padEnd(11)}  ${k.name}`),
  )
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('list')
    .description('list partner API keys')
    .option('--owner <address>', 'only keys bound to this wallet')
    .action(async (opts: ListKeysOptions) => void (await run(opts, ctx())))
}
