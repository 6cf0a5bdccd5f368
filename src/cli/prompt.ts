import type { CliContext } from './context.js'
import { usageError } from './errors.js'

export type AskOptions = {
  /** The flag that gives this value, named when there is no terminal to ask on. */
  flag: string
  message: string
  /** Read without echo (keys). */
  secret?: boolean
  validate?: (value: string) => true | string
}

/**
 * A value the user did not pass: asked on a terminal (hidden for secrets, with @inquirer/prompts,
 * loaded only then); without one, a usage error naming the flag. Ctrl-C at the prompt is
 * ExitPromptError, which main maps to exit 130.
 */
export async function askFor(ctx: Pick<CliContext, 'interactive' | 'colorAllowed'>, opts: AskOptions): Promise<string> {
  if (!ctx.interactive)
    throw usageError(`missing ${opts.flag}: pass ${opts.flag} <value> (there is no terminal to ask on)`)
  const { input, password } = await loadPrompts(ctx)
  const validate = (v: string) => (v.trim() === '' ? 'a value is needed' : (opts.validate?.(v.trim()) ?? true))
  const value = opts.secret
    ? await password({ message: opts.message, validate }, { output: process.stderr })
    : await input({ message: opts.message, validate }, { output: process.stderr })
  return value.trim()
}

/** Yes or no on a terminal; `assumeYes` (--yes) or no terminal answers without asking. */
export async function confirm(
  ctx: Pick<CliContext, 'interactive' | 'colorAllowed'>,
  message: string,
  opts: { assumeYes?: boolean; default?: boolean } = {},
): Promise<boolean> {
  if (opts.assumeYes || !ctx.interactive) return true
  const { confirm } = await loadPrompts(ctx)
  return confirm({ message, default: opts.default ?? false }, { output: process.stderr })
}

/** Inquirer decides on colour when it loads, from NO_COLOR: --no-color sets it first (one command per process). */
function loadPrompts(ctx: Pick<CliContext, 'colorAllowed'>) {
  if (!ctx.colorAllowed) process.env.NO_COLOR = '1'
  return import('@inquirer/prompts')
}
