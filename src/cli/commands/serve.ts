import { Command, Option } from 'commander'
import type { ResolvedConfig } from '../../config/load.js'
import { parsePortFlag } from '../../config/port.js'
import { rpcOrigins } from '../../config/rpc-origin.js'
import { exitCodes } from '../../errors/exit-codes.js'
import { type CliContext, label } from '../context.js'
import { removeRuntimeFile, writeRuntimeFile } from '../runtime-file.js'
import { logLevels, profiles } from '../values.js'

export type ServeOptions = {
  port?: string
  host?: string
  dataDir?: string
  fresh?: boolean
  resetChain?: string[]
  profile?: string
  logLevel?: string
  role?: string
  metricsPort?: string
}

type DaemonModule = typeof import('../../../daemon/entry.js')

/**
 * The one place the CLI loads the daemon: lazily, so client commands never pay for it; its composition root starts
 * loading at once.
 */
const loadDaemon = async (): Promise<DaemonModule> => {
  const daemon = await import('../../../daemon/entry.js')
  void daemon.loadRoot()
  return daemon
}

/**
 * Starts the daemon, records where it runs in the per-user runtime file (so other commands find it
 * without --api-url), and runs until SIGINT (exit 130, as for any Ctrl-C) or SIGTERM (exit 0).
 */
export async function run(
  opts: ServeOptions,
  ctx: CliContext,
  deps = { loadDaemon, signals: process as Pick<NodeJS.Process, 'once'> },
): Promise<number> {
  // The daemon's modules take most of the start-up: load them while the config is read and checked.
  const daemonModule = deps.loadDaemon()
  daemonModule.catch(() => {}) // awaited below; this only keeps an early config error from leaving it unhandled
  // The config file checked first: a corrupt one is named (CONFIG_CORRUPT), a too-open one narrowed.
  ;(await import('../user-config-file.js')).checkUserConfig(ctx)
  const { loadConfig } = await import('../../config/load.js')
  const config: ResolvedConfig = loadConfig({
    env: ctx.env,
    flags: {
      port: opts.port,
      host: opts.host,
      dataDir: opts.dataDir,
      fresh: opts.fresh,
      resetChain: opts.resetChain,
      profile: opts.profile,
      logLevel: opts.logLevel,
      role: opts.role,
      metrics: opts.metricsPort !== undefined ? { port: opts.metricsPort } : undefined,
    },
  })
  const t0 = performance.now()
  const spinner = ctx.spinner(`starting parx (${config.profile})`)
  const { startDaemon } = await daemonModule
  let daemon
  try {
    daemon = await startDaemon(config, { onProgress: (step) => spinner.update(step) })
  } catch (e) {
    spinner.stop() // the one catch prints the reason, on one line
    throw e
  }
  spinner.stop()
  const readyMs = Math.round(performance.now() - t0)
  const runtimeFile = writeRuntimeFile(ctx.env, {
    apiUrl: daemon.urls.api,
    dataDir: config.dataDir,
    pid: process.pid,
    profile: config.profile,
    startedAt: Date.now(),
  })
  // RPC URLs by their origin only: a provider's key in the path, query or userinfo stays off the screen.
  const urls = { ...daemon.urls, rpc: rpcOrigins(daemon.urls.rpc) }
  const ready = {
    ready: true,
    profile: config.profile,
    pid: process.pid,
    readyMs,
    dataDir: config.dataDir,
    runtimeFile,
    urls,
  }
  if (ctx.output === 'json') ctx.stdout(JSON.stringify(ready))
  else {
    ctx.stdout(`${ctx.color.green('✔')} parx is ready (${config.profile} profile, ${readyMs} ms)`)
    ctx.stdout(`${label(ctx, 'API')}${daemon.urls.api}`)
    ctx.stdout(`${label(ctx, 'facilitator')}${daemon.urls.facilitator}`)
    ctx.stdout(`${label(ctx, 'platform')}${daemon.urls.platform}`)
    ctx.stdout(`${label(ctx, 'dashboard')}${daemon.urls.dashboard}`)
    if (daemon.urls.metrics) ctx.stdout(`${label(ctx, 'metrics')}${daemon.urls.metrics}`)
    for (const [net, url] of Object.entries(urls.rpc)) ctx.stdout(`${label(ctx, net)}${url}`)
    ctx.stdout(`${label(ctx, 'data')}${config.dataDir}`)
    ctx.stderr('Press Ctrl-C to stop.')
  }
  const signal = await new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
    let stopping = false
    const stop = (signal: 'SIGINT' | 'SIGTERM') => {
      if (stopping) return
      stopping = true
      if (ctx.output === 'text') ctx.stderr(`\n${signal}: stopping parx...`)
      removeRuntimeFile(ctx.env)
      daemon.stop().then(
        () => resolve(signal),
        () => resolve(signal),
      )
      // A second Ctrl-C means "now".
      deps.signals.once('SIGINT', () => process.exit(exitCodes.cancelled))
    }
    deps.signals.once('SIGINT', () => stop('SIGINT'))
    deps.signals.once('SIGTERM', () => stop('SIGTERM'))
  })
  return signal === 'SIGINT' ? exitCodes.cancelled : exitCodes.ok
}

export function define(ctx: () => CliContext): Command {
  return new Command('serve')
    .description('start the parx daemon (embedded chains on the local profile)')
    .addOption(new Option('--profile <profile>', 'network profile').choices(profiles))
    .option('--port <port>', 'HTTP port (0 picks a free one; default 8420)', parsePortFlag)
    .option(
      '--metrics-port <port>',
      'serve GET /metrics without a token on this port of 127.0.0.1, or of PARX_METRICS_HOST ' +
        '(0 picks a free one; default: only on the API port, behind the operator token)',
      parsePortFlag,
    )
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--data-dir <dir>', 'where the store, keys and chain state live')
    .option('--fresh', 'delete the data dir first and start over')
    .option(
      '--reset-chain <network>',
      'start one embedded chain over (local-base, local-radius; repeatable): its ' +
        'state file is moved aside and what the store records on it will disagree with it',
      collect,
    )
    .addOption(
      new Option(
        '--role <role>',
        'api: serve the routes; worker: run the worker duties when ' +
          'leading; all: both (api and worker need PARX_STORE_URL)',
      ).choices(['api', 'worker', 'all']),
    )
    .addOption(
      new Option('--log-level <level>', 'daemon log level (the log is <data-dir>/parx.log)').choices(logLevels),
    )
    .action(async (opts: ServeOptions) => {
      process.exitCode = await run(opts, ctx())
    })
}

/** A repeatable flag, or one with comma-separated values, as a list. */
function collect(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  ]
}
