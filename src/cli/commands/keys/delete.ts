import type { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand, type PartnerKeyRecord } from './shared.js'

export async function run(id: string, opts: OperatorOptions, ctx: CliContext) {
  const result = await operatorCall<PartnerKeyRecord>(ctx, opts, `/api/operator/keys/${encodeURIComponent(id)}`, {
    method: 'DELETE',
  })
  emit(ctx, result, () => [`Deleted ${result.id} (${result.name}).`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('delete')
    .description('delete a partner API key')
    .argument('<id>', 'key id from `parx keys list`')
    .action(async (id: string, opts: OperatorOptions) => void (await run(id, opts, ctx())))
}
