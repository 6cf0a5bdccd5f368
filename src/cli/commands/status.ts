import { Command } from 'commander'
import chalk from 'chalk'
import { callJson, ApiError } from '../../sdk/http.js'
import { emit, label, type CliContext } from '../context.js'

type Readiness = { ready: boolean; checks: Record<string, { ok: boolean; ms: number; detail?: string | number }> }

/** Is the daemon up, and can it reach its store and every chain? */
export async function run(_opts: object, ctx: CliContext) {
  let readiness: Readiness
  try {
    readiness = await callJson<Readiness>(ctx.apiUrl, '/api/readiness')
  } catch (e) {
    // 503 still carries the per-dependency detail worth showing.
    if (!(e instanceof ApiError) || e.status !== 503) throw e
    readiness = await callJson<Readiness>(ctx.apiUrl, '/api/readiness').catch(() => ({ ready: false, checks: {} }))
  }
  const result = { apiUrl: ctx.apiUrl, ...readiness }
  emit(ctx, result, () => [
    `${label('daemon')}${ctx.apiUrl} ${readiness.ready ? chalk.green('ready') : chalk.red('not ready')}`,
    ...Object.entries(readiness.checks).map(([k, c]) => `${label(k)}${c.ok ? chalk.green('ok') : chalk.red('down')} ${c.ms} ms${c.detail !== undefined ? `  ${c.detail}` : ''}`),
  ])
  return readiness.ready ? 0 : 1
}

export function define(ctx: () => CliContext): Command {
  return new Command('status')
    .description('show whether the daemon and its chains are ready')
    .action(async () => {
      process.exitCode = await run({}, ctx())
    })
}
