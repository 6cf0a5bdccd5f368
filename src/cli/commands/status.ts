import { Command } from 'commander'
import { emit, label, type CliContext } from '../context.js'
import { callDaemon } from '../daemon-call.js'
import { CliError } from '../errors.js'

export type ReadinessCheck = { ok: boolean; ms: number; detail?: string | number }
export type StatusResult = { apiUrl: string; ready: boolean; checks: Record<string, ReadinessCheck> }

/** Is the daemon up, and can it reach its store and every chain? Each check with its reason (GET /api/readiness). */
export async function run(_opts: object, ctx: CliContext): Promise<number> {
  // 503 means "not ready" and still carries every check's detail.
  const readiness = await callDaemon<Omit<StatusResult, 'apiUrl'>>(ctx, '/api/readiness', { acceptStatus: [503] })
  if (typeof readiness.ready !== 'boolean' || typeof readiness.checks !== 'object') {
    throw new CliError('NOT_PARX', `the server at ${ctx.apiUrl} answered /api/readiness without parx's readiness fields`)
  }
  const result: StatusResult = { apiUrl: ctx.apiUrl, ready: readiness.ready, checks: readiness.checks }
  const { green, red } = ctx.color
  // A chain's check answers with its head: name it (an EVM block height, a Solana slot).
  const { networks } = ctx.output === 'text' ? await import('../../networks/registry.js') : { networks: {} as Record<string, { family: string }> }
  const detail = (k: string, c: ReadinessCheck) => {
    if (!c.ok) return `  reason: ${c.detail}`
    if (typeof c.detail !== 'number') return `  ${c.detail}`
    const family = networks[k]?.family
    return `  ${family === 'solana' ? 'slot' : family === 'evm' ? 'block' : 'height'} ${c.detail}`
  }
  emit(ctx, result, () => [
    `${label(ctx, 'daemon')}${ctx.apiUrl} ${result.ready ? green('ready') : red('not ready')}`,
    ...Object.entries(result.checks).map(([k, c]) => `${label(ctx, k)}${c.ok ? green('ok') : red('down')} ${c.ms} ms${c.detail !== undefined ? detail(k, c) : ''}`),
  ])
  return result.ready ? 0 : 1
}

export function define(ctx: () => CliContext): Command {
  return new Command('status')
    .description('show whether the daemon is ready: the store and every chain, each with its reason')
    .action(async () => {
      process.exitCode = await run({}, ctx())
    })
}
