import { Command, Option } from 'commander'
import ora from 'ora'
import { loadConfig, type ResolvedConfig } from '../../config/load.js'
import { parsePortFlag } from '../../config/port.js'
import type { CliContext } from '../context.js'
import { label } from '../context.js'

export type ServeOptions = { port?: string; host?: string; dataDir?: string; fresh?: boolean; profile?: string; logLevel?: string }

type DaemonModule = typeof import('../../../daemon/main.js')

/** The one place the CLI loads the daemon: lazily, so client commands never pay for it. */
const loadDaemon = (): Promise<DaemonModule> => import('../../../daemon/main.js')

export async function run(opts: ServeOptions, ctx: CliContext, deps = { loadDaemon }): Promise<number> {
  const config: ResolvedConfig = loadConfig({
    env: ctx.env,
    flags: { port: opts.port, host: opts.host, dataDir: opts.dataDir, fresh: opts.fresh, profile: opts.profile, logLevel: opts.logLevel },
  })
  const t0 = performance.now()
  const spinner = ctx.output === 'text' && process.stderr.isTTY ? ora({ stream: process.stderr }).start(`starting parx (${config.profile})`) : undefined
  const { startDaemon } = await deps.loadDaemon()
  let daemon
  try {
    daemon = await startDaemon(config, { onProgress: (step) => spinner && (spinner.text = step) })
  } catch (e) {
    spinner?.fail('parx did not start')
    throw e
  }
  const readyMs = Math.round(performance.now() - t0)
  const ready = { ready: true, profile: config.profile, pid: process.pid, readyMs, dataDir: config.dataDir, urls: daemon.urls }
  if (ctx.output === 'json') ctx.stdout(JSON.stringify(ready))
  else {
    const line = `parx is ready (${config.profile} profile, ${readyMs} ms)`
    if (spinner) spinner.succeed(line)
    else ctx.stdout(line)
    ctx.stdout(`${label('API')}${daemon.urls.api}`)
    ctx.stdout(`${label('facilitator')}${daemon.urls.facilitator}`)
    ctx.stdout(`${label('platform')}${daemon.urls.platform}`)
    ctx.stdout(`${label('dashboard')}${daemon.urls.dashboard}`)
    for (const [net, url] of Object.entries(daemon.urls.rpc)) ctx.stdout(`${label(net)}${url}`)
    ctx.stdout(`${label('data')}${config.dataDir}`)
    ctx.stdout('Press Ctrl-C to stop.')
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      if (ctx.output === 'text') ctx.stderr(`\n${signal}: stopping parx...`)
      daemon.stop().then(resolve, resolve)
      // A second signal means "now".
      process.once('SIGINT', () => process.exit(130))
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
  })
  return 0
}

export function define(ctx: () => CliContext): Command {
  return new Command('serve')
    .description('start the parx daemon (embedded chains on the local profile)')
    .addOption(new Option('--profile <profile>', 'network profile').choices(['local', 'testnet', 'mainnet']))
    .option('--port <port>', 'HTTP port (0 picks a free one; default 8420)', parsePortFlag)
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--data-dir <dir>', 'where the store, keys and chain state live')
    .option('--fresh', 'delete the data dir first and start over')
    .addOption(new Option('--log-level <level>', 'daemon log level (the log is <data-dir>/parx.log)').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
    .action(async (opts: ServeOptions) => {
      process.exitCode = await run(opts, ctx())
    })
}
