import { Command, Option } from 'commander'
import { defaultDataDir } from '../../config/paths.js'
import { type CliContext, label } from '../context.js'

export type ChainsOptions = {
  as?: 'local' | 'testnet'
  port?: string
  host?: string
  dataDir?: string
  fresh?: boolean
}

type DaemonModule = typeof import('../../../daemon/entry.js')

/** The daemon side is reached through the one module `parx serve` loads, lazily, as serve does. */
const loadDaemon = (): Promise<DaemonModule> => import('../../../daemon/entry.js')

/**
 * Runs only the embedded chains as standalone RPC endpoints and prints how to point a daemon at
 * them: the `serve.rpc` / `serve.contracts` block of the config file and the PARX_* lines.
 */
export async function run(opts: ChainsOptions, ctx: CliContext, deps = { loadDaemon, untilSignal }): Promise<number> {
  const as = opts.as ?? 'local'
  const dataDir = opts.dataDir ?? defaultDataDir(`chains-${as}`, ctx.env)
  const { startStandaloneChains } = await deps.loadDaemon()
  const chains = await startStandaloneChains({
    as,
    dataDir,
    host: opts.host,
    port: opts.port === undefined ? 8545 : Number(opts.port),
    fresh: opts.fresh,
  })
  const serve = { profile: as, rpc: chains.rpc, contracts: chains.contracts }
  if (ctx.output === 'json') {
    ctx.stdout(
      JSON.stringify({
        ready: true,
        as,
        pid: process.pid,
        dataDir,
        rpc: chains.rpc,
        contracts: chains.contracts,
        faucet: chains.faucetUrl,
        accounts: chains.accounts,
        serve,
        env: chains.env,
      }),
    )
  } else {
    ctx.stdout(`parx chains are ready (as ${as})`)
    for (const [net, url] of Object.entries(chains.rpc)) ctx.stdout(`${label(ctx, net)}${url}`)
    ctx.stdout(`${label(ctx, 'faucet')}POST ${chains.faucetUrl} {"network","to","token","amount"}`)
    ctx.stdout(`${label(ctx, 'data')}${dataDir}`)
    ctx.stdout('')
    ctx.stdout(`The config file's "serve" section (parx config path), for a --profile ${as} daemon:`)
    ctx.stdout(JSON.stringify(serve, null, 2))
    ctx.stdout('')
    ctx.stdout('Or the environment (test keys of these chains only; they hold the seeded inventory):')
    for (const [name, value] of Object.entries(chains.env)) ctx.stdout(`${name}='${value}'`)
    ctx.stdout('Press Ctrl-C to stop.')
  }
  const signal = await deps.untilSignal()
  if (ctx.output === 'text') ctx.stderr(`\n${signal}: stopping the chains...`)
  await chains.stop()
  return 0
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => {
      process.off('SIGINT', int)
      process.off('SIGTERM', term)
      resolve(signal)
    }
    const int = () => on('SIGINT')
    const term = () => on('SIGTERM')
    process.once('SIGINT', int)
    process.once('SIGTERM', term)
  })
}

export function define(ctx: () => CliContext): Command {
  return new Command('chains')
    .description(
      'run only the embedded chains (both anvils, the Solana RPC, a faucet) as RPC endpoints for a daemon or a team',
    )
    .addOption(
      new Option(
        '--as <profile>',
        'present the local networks, or the testnet ones (base-sepolia and radius-testnet chain ids, devnet genesis)',
      )
        .choices(['local', 'testnet'])
        .default('local'),
    )
    .option(
      '--port <port>',
      'first of five ports: Base, Radius, Solana RPC and websocket, faucet (0 picks free ones; default 8545)',
    )
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--data-dir <dir>', 'chain state and the keys they are seeded for (default <data>/parx/chains-<as>)')
    .option('--fresh', 'delete the data dir first and start over')
    .action(async (opts: ChainsOptions) => {
      process.exitCode = await run(opts, ctx())
    })
}
