import { Command } from 'commander'
import type { EndpointWithSecret, UpdateEndpointBody } from '../../../sdk/platform/endpoints.js'
import { type CliContext, label } from '../../context.js'
import { usageError } from '../../errors.js'
import {
  type CommandResult,
  httpUrlArg,
  needUser,
  ok,
  type PlatformDeps,
  platformAction,
  uuidArg,
} from '../platform-shared.js'
import { endpointExtras } from './create.js'

export type UpdateEndpointOptions = {
  id: string
  discoverable?: string
  description?: string
  webhookUrl?: string
  rotateWebhookSecret?: boolean
}

const YES = ['yes', 'true', 'on']
const NO = ['no', 'false', 'off']

/** Lists an endpoint in the bazaar or not, describes it, sets or removes its settlement webhook. */
export async function run(opts: UpdateEndpointOptions, deps: PlatformDeps): Promise<CommandResult<EndpointWithSecret>> {
  const id = uuidArg(opts.id ?? '', '<id>')
  const body: UpdateEndpointBody = {}
  if (opts.discoverable !== undefined) {
    const v = opts.discoverable.trim().toLowerCase()
    if (![...YES, ...NO].includes(v)) throw usageError(`--discoverable '${opts.discoverable}' must be yes or no`)
    body.discoverable = YES.includes(v)
  }
  if (opts.description !== undefined)
    body.description = opts.description.trim().toLowerCase() === 'none' ? null : opts.description
  if (opts.webhookUrl !== undefined)
    body.webhookUrl =
      opts.webhookUrl.trim().toLowerCase() === 'none' ? null : httpUrlArg(opts.webhookUrl, '--webhook-url')
  if (opts.rotateWebhookSecret) body.rotateWebhookSecret = true
  if (Object.keys(body).length === 0)
    throw usageError('nothing to change: pass --discoverable, --description, --webhook-url or --rotate-webhook-secret')
  needUser(deps, 'endpoint update')
  return ok(await deps.platform.updateEndpoint({ params: { id }, body }))
}

export function human(e: EndpointWithSecret, ctx: CliContext): string[] {
  return [`${label(ctx, 'paid URL')}${e.url}`, `${label(ctx, 'id')}${e.id}`, ...endpointExtras(e, ctx)]
}

export function define(ctx: () => CliContext): Command {
  const cmd = new Command('update')
    .description('list an endpoint in the bazaar or not, describe it, set or remove its settlement webhook')
    .argument('<id>', 'endpoint id')
    .option('--discoverable <yes|no>', 'list it in the bazaar ({facilitator_url}/discovery/resources)')
    .option('--description <text|none>', 'what the bazaar and the 402 say it is; none clears it')
    .option('--webhook-url <url|none>', 'where signed settlement events go; none removes the webhook')
    .option('--rotate-webhook-secret', 'make a new webhook secret (printed once)')
  return platformAction(cmd, ctx, run, human)
}
