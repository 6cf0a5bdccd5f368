import type { Command } from 'commander'
import { type CliContext, emit, label } from '../../context.js'
import { evmAddress } from '../../validate.js'
import { type OperatorOptions, operatorCall, operatorCommand, type PartnerKeyRecord } from './shared.js'

export type CreateKeyOptions = OperatorOptions & { name: string; description?: string; owner?: string }

/** Creates a partner API key. The key is printed once; the daemon keeps only its hash. */
export async function run(opts: CreateKeyOptions, ctx: CliContext) {
  if (opts.owner !== undefined) evmAddress(opts.owner, '--owner')
  const result = await operatorCall<PartnerKeyRecord & { key: string }>(ctx, opts, '/api/operator/keys', {
    body: { name: opts.name, description: opts.description, owner: opts.owner },
  })
  emit(ctx, result, () => [
    `${label(ctx, 'key')}${result.key}`,
    `${label(ctx, 'id')}${result.id}`,
    `${label(ctx, 'name')}${result.name}`,
    `${label(ctx, 'owner')}${result.owner ?? 'none'}`,
    'Store the key now: it is not shown again. Send it as the x-api-key header.',
  ])
  return result
}

export function define(ctx: () => CliContext): Command {
  return operatorCommand('create')
    .description('create a partner API key')
    .requiredOption('--name <name>', 'a name to tell keys apart')
    .option('--description <text>', 'what the key is for')
    .option('--owner <address>', 'the wallet the key is bound to (default: none)')
    .action(async (opts: CreateKeyOptions) => void (await run(opts, ctx())))
}
