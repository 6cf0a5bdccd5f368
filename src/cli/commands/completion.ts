import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Command, Option } from 'commander'
import { packageRoot } from '../../config/package-root.js'
import { completions } from '../completions.js'
import type { CliContext } from '../context.js'

export const completionsDir = () => join(packageRoot(), 'completions')
export const completionFiles = { bash: 'parx.bash', zsh: '_parx', fish: 'parx.fish' } as const

export type CompletionOptions = { shell?: 'bash' | 'zsh' | 'fish'; write?: boolean }

/** Prints a completion script, or writes all three into completions/ (npm run build:completions). */
export function run(opts: CompletionOptions, ctx: CliContext, program: Command): number {
  const scripts = completions(program)
  if (opts.write) {
    for (const [shell, file] of Object.entries(completionFiles))
      writeFileSync(join(completionsDir(), file), scripts[shell as keyof typeof scripts])
    ctx.stderr(`wrote ${Object.values(completionFiles).join(', ')} to ${completionsDir()}`)
    return 0
  }
  const shell = opts.shell ?? 'bash'
  if (ctx.output === 'json') ctx.stdout(JSON.stringify({ shell, script: scripts[shell] }))
  else ctx.stdout(scripts[shell].trimEnd())
  return 0
}

export function define(ctx: () => CliContext, program: () => Command): Command {
  return new Command('completion')
    .description('print a shell completion script (bash, zsh, fish)')
    .addOption(new Option('--shell <shell>', 'which shell').choices(['bash', 'zsh', 'fish']).default('bash'))
    .option('--write', 'write all three into the completions/ folder')
    .action((opts: CompletionOptions) => {
      process.exitCode = run(opts, ctx(), program())
    })
}
