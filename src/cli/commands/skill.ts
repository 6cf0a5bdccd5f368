import { Command } from 'commander'
import { type CliContext, emit } from '../context.js'

export type SkillOptions = { path?: boolean }
export type SkillResult = { path: string; skill?: string }

/**
 * Where the skill is in the package: Agent Skills' `<name>/SKILL.md` layout, shipped with it (package.json "files").
 */
export const skillPath = async () => {
  const [{ join }, { packageRoot }] = await Promise.all([import('node:path'), import('../../config/package-root.js')])
  return join(packageRoot(), 'skills', 'parx', 'SKILL.md')
}

/**
 * Prints the agent skill (SKILL.md) for coding agents, or with --path where it is, to copy or link into an agent's
 * skills folder.
 */
export async function run(opts: SkillOptions, ctx: CliContext): Promise<SkillResult> {
  const path = await skillPath()
  if (opts.path) {
    emit(ctx, { path }, () => [path])
    return { path }
  }
  const { readFile } = await import('node:fs/promises')
  const skill = await readFile(path, 'utf8')
  emit(ctx, { path, skill }, () => [skill.trimEnd()])
  return { path, skill }
}

export function define(ctx: () => CliContext): Command {
  return new Command('skill')
    .description('print the agent skill (SKILL.md) that tells coding agents how to use parx')
    .option('--path', 'print only where SKILL.md is in the installed package')
    .action(async (opts: SkillOptions) => void (await run(opts, ctx())))
}
