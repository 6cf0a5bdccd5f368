import { Command } from 'commander'
import type { ProcessRole, Readiness, ReadinessCheck } from '../../sdk/discovery/readiness.js'
import { type CliContext, emit, label } from '../context.js'
import { callDaemon } from '../daemon-call.js'
import { CliError } from '../errors.js'

export type { ReadinessCheck }
/** `role`, `leader` and `leadership` are absent from a daemon older than them. */
export type StatusResult = {
  apiUrl: string
  ready: boolean
  checks: Record<string, ReadinessCheck>
  role?: ProcessRole
  leader?: boolean | null
  leadership?: string
}

/**
 * Is the daemon up, and can it reach its store and every chain? Each check with its reason, and the process' role (GET
 * /api/readiness).
 */
export async function run(_opts: object, ctx: CliContext): Promise<number> {
  // 503 means "not ready" and still carries every check's detail.
  const readiness = await callDaemon<Partial<Readiness>>(ctx, '/api/readiness', { acceptStatus: [503] })
  if (typeof readiness.ready !== 'boolean' || typeof readiness.checks !== 'object') {
    throw new CliError(
      'NOT_PARX',
      `the server at ${ctx.apiUrl} answered /api/readiness without parx's readiness fields`,
    )
  }
  const result: StatusResult = {
    apiUrl: ctx.apiUrl,
    ready: readiness.ready,
    checks: readiness.checks,
    ...(readiness.role
      ? { role: readiness.role, leader: readiness.leader ?? null, leadership: readiness.leadership }
      : {}),
  }
  const { green, red } = ctx.color
  // A chain's check answers with its head: name it (an EVM block height, a Solana slot).
  const { networks } =
    ctx.output === 'text'
      ? await import('../../networks/registry.js')
      : { networks: {} as Record<string, { family: string }> }
  const detail = (k: string, c: ReadinessCheck) => {
    if (!c.ok) return `  reason: ${c.detail}`
    if (typeof c.detail !== 'number') return `  ${c.detail}`
    const family = networks[k]?.family
    return `  ${family === 'solana' ? 'slot' : family === 'evm' ? 'block' : 'height'} ${c.detail}`
  }
  const leader = result.leader === true ? 'yes' : result.leader === false ? 'no' : 'n/a'
  emit(ctx, result, () => [
    `${label(ctx, 'daemon')}${ctx.apiUrl} ${result.ready ? green('ready') : red('not ready')}`,
    ...(result.role
      ? [
          `${label(ctx, 'role')}${result.role}`,
          `${label(ctx, 'leader')}${leader}  ${result.leadership ?? ''}`.trimEnd(),
        ]
      : []),
    ...Object.entries(result.checks).map(
      ([k, c]) =>
        `${label(ctx, k)}${c.ok ? green('ok') : red('down')} ${c.ms} ms${c.detail !== undefined ? detail(k, c) : ''}`,
    ),
  ])
  return result.ready ? 0 : 1
}

export function define(ctx: () => CliContext): Command {
  return new Command('status')
    .description(
      'show whether the daemon is ready (the store and every chain, each ' +
        'with its reason), its role, and whether it leads the worker duties',
    )
    .action(async () => {
      process.exitCode = await run({}, ctx())
    })
}
