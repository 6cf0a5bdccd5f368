import { Command } from 'commander'
import type { EndpointWithSecret } from '../../../sdk/platform/endpoints.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import {
  addressArg,
  type CommandResult,
  decimalArg,
  httpUrlArg,
  needUser,
  ok,
  type PlatformDeps,
  platformAction,
  tokenArg,
  uuidArg,
} from '../platform-shared.js'

export type CreateEndpointOptions = {
  upstream: string
  price: string
  network: string
  token: string
  payTo: string
  name?: string
  discoverable?: boolean
  description?: string
  webhookUrl?: string
  batchSettlement?: boolean
  authCapture?: boolean
}

/** Registers a paid endpoint: the platform serves a paid URL and forwards to the upstream after payment. */
export async function run(opts: CreateEndpointOptions, deps: PlatformDeps): Promise<CommandResult<EndpointWithSecret>> {
  const upstreamUrl = httpUrlArg(opts.upstream ?? '', '--upstream')
  const price = decimalArg(opts.price ?? '', '--price')
  const token = tokenArg(opts.token ?? '', '--token')
  const network = (opts.network ?? '').trim().toLowerCase()
  if (!/^[a-z0-9-]+$/.test(network))
    throw usageError(`--network '${opts.network}' is not a network name such as local-base`)
  const given = (opts.payTo ?? '').trim()
  const payTo = given.startsWith('0x') ? addressArg(given, '--pay-to') : uuidArg(given, '--pay-to')
  const webhookUrl = opts.webhookUrl === undefined ? undefined : httpUrlArg(opts.webhookUrl, '--webhook-url')
  needUser(deps, 'endpoint create')
  return ok(
    await deps.platform.createEndpoint({
      body: {
        upstreamUrl,
        price,
        network,
        token,
        payTo,
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.discoverable ? { discoverable: true } : {}),
        ...(opts.description ? { description: opts.description } : {}),
        ...(webhookUrl ? { webhookUrl } : {}),
        ...(opts.batchSettlement ? { batchSettlement: true } : {}),
        ...(opts.authCapture ? { authCapture: true } : {}),
      },
    }),
  )
}

export function human(e: EndpointWithSecret, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'paid URL')}${e.url}`,
    `${label(ctx, 'id')}${e.id}`,
    `${label(ctx, 'price')}${e.price} ${e.token} on ${e.network}, paid to ${e.payTo}`,
    `${label(ctx, 'upstream')}${e.upstreamUrl}`,
    ...endpointExtras(e, ctx),
  ]
}

/** The bazaar and webhook lines of an endpoint, and its webhook secret the one time it is shown. */
export function endpointExtras(e: EndpointWithSecret, ctx: CliContext): string[] {
  return [
    `${label(ctx, 'bazaar')}${e.discoverable ? 'listed' : 'not listed'}`,
    ...(e.batchSettlement ? [`${label(ctx, 'channels')}batch-settlement offered (deposit once, then vouchers)`] : []),
    ...(e.authCapture
      ? [
          `${label(ctx, 'refundable')}auth-capture offered (held, captured ` +
            `after the upstream answered, refundable with parx endpoint refund)`,
        ]
      : []),
    ...(e.webhookUrl ? [`${label(ctx, 'webhook')}${e.webhookUrl}`] : []),
    ...(e.webhookSecret
      ? [
          `${label(ctx, 'secret')}${e.webhookSecret}`,
          ctx.color.dim(
            '  shown once: keep it to verify webhook-signature (docs/platform-api.md "Settlement webhooks")',
          ),
        ]
      : []),
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
    .option('--discoverable', 'list it in the bazaar ({facilitator_url}/discovery/resources)')
    .option('--description <text>', 'what the bazaar and the 402 say it is')
    .option('--webhook-url <url>', 'POST a signed event here for every settlement (the secret is printed once)')
    .option(
      '--batch-settlement',
      'also offer x402 batch-settlement: buyers deposit once, then pay with vouchers (USDC)',
    )
    .option(
      '--auth-capture',
      'also offer x402 auth-capture: held before the upstream runs, captured ' +
        'after it answered, refundable (USDC; --pay-to one of your agents)',
    )
  return platformAction(cmd, ctx, run, human)
}
