import type { Command } from 'commander'
import { type CliContext, emit } from '../../context.js'
import { type OperatorOptions, operatorCall, operatorCommand, type PartnerKeyRecord } from './shared.js'

export async function run(id: string, opts: OperatorOptions, ctx: CliContext) {
  const result = await operatorCall<PartnerKeyRecord>(
    ctx,
    opts,
    `/api/operator/keys/${encodeURIComponent(id)}/deactivate`,
    { method: 'POST', body: {} },
  )
  emit(ctx, result, () => [`Deactivated ${result.id} (${result.name}); it stays listed and no longer validates.`])
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('deactivate')
    .description('deactivate a partner API key (it stays listed)')
    .argument('<id>', 'key id from `parx keys list`')
    .action(async (id: string, opts: OperatorOptions) => void (await run(id, opts, ctx())))
}
