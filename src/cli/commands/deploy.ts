import { Command } from 'commander'
import { contractsEnv } from '../../config/env-names.js'
import { type CliContext, label } from '../context.js'

export type DeployOptions = { network: string; write?: boolean }

type DaemonModule = typeof import('../../../daemon/entry.js')

/** The daemon side is reached through the one module `parx serve` loads, lazily, as serve does. */
const loadDaemon = (): Promise<DaemonModule> => import('../../../daemon/entry.js')

/**
 * Deploys what a real network is missing with the configured keys (PARX_SOLVER_KEY deploys and
 * owns), seeds nothing, and prints the addresses, or with --write puts them in the config file.
 */
export async function run(opts: DeployOptions, ctx: CliContext, deps = { loadDaemon }): Promise<number> {
  // Loaded here, not at the top: --help and other commands must not pay for the config schema.
  const [{ loadConfig }, { openConfigFile }, { BaseError }, { networks }] = await Promise.all([
    import('../../config/load.js'),
    import('../../config/config-file.js'),
    import('../../errors/index.js'),
    import('../../networks/registry.js'),
  ])
  const spec = networks[opts.network]
  if (!spec)
    throw new BaseError(
      'BAD_REQUEST',
      `unknown network '${opts.network}'; the registry has ${Object.keys(networks).join(', ')}`,
    )
  const profile = spec.kind === 'local' ? 'local' : spec.kind
  const config = loadConfig({ env: ctx.env, flags: { profile } })
  const { deployNetwork } = await deps.loadDaemon()
  const result = await deployNetwork({
    config,
    network: spec.key,
    progress: (step) => ctx.output === 'text' && ctx.stderr(`${step}...`),
  })
  if (opts.write) {
    const file = openConfigFile(ctx.env)
    const serve = (file.get('serve') as Record<string, unknown> | undefined) ?? {}
    const contracts = {
      ...((serve.contracts as Record<string, unknown> | undefined) ?? {}),
      [spec.key]: result.contracts,
    }
    file.set('serve', { ...serve, contracts })
  }
  if (ctx.output === 'json') {
    ctx.stdout(
      JSON.stringify({
        ...result,
        written: !!opts.write,
        env: { [contractsEnv(spec.key)]: JSON.stringify(result.contracts) },
      }),
    )
    return 0
  }
  ctx.stdout(
    `${spec.key}: ${
      result.deployed.length
        ? `deployed ${result.deployed.join(', ')}`
        : 'nothing to deploy, everything configured is on chain'
    }`,
  )
  for (const [name, address] of Object.entries(result.contracts)) ctx.stdout(`${label(ctx, name)}${address}`)
  for (const note of result.notes) ctx.stdout(`note: ${note}`)
  if (opts.write) ctx.stdout(`written to serve.contracts["${spec.key}"] in ${openConfigFile(ctx.env).path}`)
  else {
    ctx.stdout(`\nserve.contracts["${spec.key}"] (or run again with --write):`)
    ctx.stdout(JSON.stringify(result.contracts, null, 2))
    ctx.stdout(`${contractsEnv(spec.key)}='${JSON.stringify(result.contracts)}'`)
  }
  return 0
}

export function define(ctx: () => CliContext): Command {
  return new Command('deploy')
    .description(
      'deploy the router, pools, cross-chain contracts (and tokens ' +
        'where none is configured) on a real network; seeds nothing',
    )
    .requiredOption('--network <key>', 'network key: base-sepolia, radius-testnet, base, radius')
    .option('--write', 'write the addresses to serve.contracts in the config file')
    .action(async (opts: DeployOptions) => {
      process.exitCode = await run(opts, ctx())
    })
}
