import { Command } from 'commander'
import type { Endpoint } from '../../../sdk/platform/endpoints.js'
import { label, type CliContext } from '../../context.js'
import { usageError } from '../../errors.js'
import { addressArg, decimalArg, httpUrlArg, needUser, ok, platformAction, tokenArg, uuidArg, type CommandResult, type PlatformDeps } from '../platform-shared.js'

export type CreateEndpointOptions = { upstream: string; price: string; network: string; token: string; payTo: string; name?: string }

/** Registers a paid endpoint: the platform serves a paid URL and forwards to the upstream after payment. */
export async function run(opts: CreateEndpointOptions, deps: PlatformDeps): Promise<CommandResult<Endpoint>> {
  const upstreamUrl = httpUrlArg(opts.upstream ?? '', '--upstream')
  const price = decimalArg(opts.price ?? '', '--price')
  const token = tokenArg(opts.token ?? '', '--token')
  const network = (opts.network ?? '').trim().toLowerCase()
  if (!/^[a-z0-9-]+$/.test(network)) throw usageError(`--network '${opts.network}' is not a network name such as local-base`)
  const given = (opts.payTo ?? '').trim()
  const payTo = given.startsWith('0x') ? addressArg(given, '--pay-to') : uuidArg(given, '--pay-to')
  needUser(deps, 'endpoint create')
  return ok(await deps.platform.createEndpoint({ body: { upstreamUrl, price, network, token, payTo, ...(opts.name ? { name: opts.name } : {}) } }))
}

export function human(e: Endpoint, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'paid URL')}${e.url}`,
    `${label(ctx, 'id')}${e.id}`,
    `${label(ctx, 'price')}${e.price} ${e.token} on ${e.network}, paid to ${e.payTo}`,
    `${label(ctx, 'upstream')}${e.upstreamUrl}`,
  ]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('create')
    .description('register a paid endpoint in front of an upstream URL')
    .requiredOption('--upstream <url>', 'the URL called after payment')
    .requiredOption('--price <amount>', 'price per call, e.g. 0.01')
    .requiredOption('--network <network>', 'network paid on, e.g. local-base')
    .requiredOption('--token <symbol>', 'token paid in, e.g. PUSD')
    .requiredOption('--pay-to <agent-id|address>', 'one of your agents (its wallet is paid) or an address')
    .option('--name <name>', 'a name for the endpoint')
  return platformAction(cmd, ctx, run, human)
}
