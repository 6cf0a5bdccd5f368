import type { Command } from 'commander'
import { type ExitCode, exitCodes } from '../../errors/exit-codes.js'
import { type CliContext, emit } from '../context.js'
import { CliError, usageError } from '../errors.js'
import type { PlatformApi, PlatformConnection } from '../platform-client.js'

/** Who is logged in, as far as the CLI knows before asking the platform (keys never leave here). */
export type Session = { url: string; agentKey: boolean; userKey: boolean; agentId?: string }

/**
 * What a platform command's `run` takes besides its options. Tests build it by hand with a fake
 * platform; the parser builds it with platformDeps (the config file, the environment, node:http).
 */
export type PlatformDeps = {
  ctx: CliContext
  platform: PlatformApi
  session: Session
  /** A client with other keys: logins check a key against the platform before storing it. */
  connect(keys: Omit<PlatformConnection, 'url'>): PlatformApi
  /** Yes/no before spending on a terminal; prompt.ts confirm() unless a test passes its own. */
  confirm?: (message: string) => Promise<boolean>
  /** The whole standard input (`pay -d @-`); process.stdin unless a test passes its own. */
  stdin?: () => Promise<Buffer>
}

/** What `run` returns: the data (the `--output json` document) and the process exit code. */
export type CommandResult<T> = { data: T; exit: ExitCode }
export const ok = <T>(data: T): CommandResult<T> => ({ data, exit: exitCodes.ok })

/** The credentials in effect (environment over the config file) and a node:http client with them. */
export async function platformDeps(ctx: CliContext, extra: { operatorToken?: string } = {}): Promise<PlatformDeps> {
  const [{ resolveCredentials }, { createCliPlatform }] = await Promise.all([
    import('../credentials.js'),
    import('../platform-client.js'),
  ])
  const { values, sources } = await resolveCredentials(ctx)
  const url = values.agentsUrl
  // The stored agent id was stored with the stored key: an agent key from the environment may be another agent's.
  const agentId = sources.agentKey === 'env' && sources.agentId === 'file' ? undefined : values.agentId
  const connect = (keys: Omit<PlatformConnection, 'url'>) => createCliPlatform({ url, ...keys })
  return {
    ctx,
    platform: connect({ userKey: values.userKey, agentKey: values.agentKey, operatorToken: extra.operatorToken }),
    session: { url, agentKey: !!values.agentKey, userKey: !!values.userKey, agentId },
    connect,
  }
}

/**
 * Agent commands (whoami, balance, pay, send, swap) act with the agent's key, said plainly when only a user is logged
 * in.
 */
export function needAgent(deps: Pick<PlatformDeps, 'session'>, command: string): void {
  if (deps.session.agentKey) return
  const why = deps.session.userKey ? ' (a user key is logged in, but this command acts as an agent)' : ''
  throw new CliError(
    'NO_CREDENTIALS',
    `\`parx ${command}\` needs an agent key${why}: log in with ` +
      `\`parx agent login --agent-key <key>\` or set PARX_AGENT_KEY`,
  )
}

/** User commands (agents, endpoints) act with the user's key. */
export function needUser(deps: Pick<PlatformDeps, 'session'>, command: string): void {
  if (deps.session.userKey) return
  const why = deps.session.agentKey ? ' (an agent key is logged in, but this command acts as its user)' : ''
  throw new CliError(
    'NO_CREDENTIALS',
    `\`parx ${command}\` needs a user key${why}: log in with ` +
      `\`parx auth user login --user-key <key>\` or set PARX_USER_KEY`,
  )
}

/** The agent a command acts on: PARX_AGENT_ID or the stored one, else the agent the key belongs to. */
export async function agentIdOf(deps: Pick<PlatformDeps, 'session' | 'platform'>): Promise<string> {
  return deps.session.agentId ?? (await deps.platform.whoamiAgent({})).id
}

/** Runs one platform call with a spinner on stderr, stopped whatever the call ends with. */
export async function spinning<T>(deps: Pick<PlatformDeps, 'ctx'>, what: string, call: () => Promise<T>): Promise<T> {
  const spin = deps.ctx.spinner(what)
  try {
    return await call()
  } finally {
    spin.stop()
  }
}

/** An agent command's one call (send, swap): needs an agent key, resolves the agent's id, spins meanwhile. */
export async function agentCall<T>(
  deps: PlatformDeps,
  command: string,
  what: string,
  call: (id: string) => Promise<T>,
): Promise<CommandResult<T>> {
  needAgent(deps, command)
  const id = await agentIdOf(deps)
  return ok(await spinning(deps, what, () => call(id)))
}

/** An agent or key id given as a flag or argument, checked before it reaches a path. */
export function uuidArg(value: string, name: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value))
    throw usageError(`${name} '${value}' is not a UUID`)
  return value.toLowerCase()
}

/**
 * Wires a command's run into commander: builds the deps, runs, prints the data (JSON or the human
 * lines) and sets the exit code. Errors go to main's one catch.
 */
export function platformAction<O, T>(
  cmd: Command,
  ctx: () => CliContext,
  run: (opts: O, deps: PlatformDeps) => Promise<CommandResult<T>>,
  human: (data: T, ctx: CliContext) => string[],
  opts: { operatorToken?: (o: O, ctx: CliContext) => string } = {},
): Command {
  return cmd.action(async (...args: unknown[]) => {
    const c = ctx()
    // commander passes positional arguments first, then the options object.
    const options = mergeArgs<O>(cmd, args)
    const deps = await platformDeps(c, { operatorToken: opts.operatorToken?.(options, c) })
    const r = await run(options, deps)
    emit(c, r.data, () => human(r.data, c))
    process.exitCode = r.exit
  })
}

/** Positional arguments by their declared names, merged into the options. */
function mergeArgs<O>(cmd: Command, args: unknown[]): O {
  const names = cmd.registeredArguments.map((a) => a.name().replace(/-(\w)/g, (_, c: string) => c.toUpperCase()))
  const options = args[names.length] as Record<string, unknown>
  return {
    ...options,
    ...Object.fromEntries(names.map((n, i) => [n, args[i]]).filter(([, v]) => v !== undefined)),
  } as O
}

/** Amounts as the contract takes them: a positive decimal string, no sign, exponent or leading zeros. */
export function decimalArg(value: string, flag: string): string {
  const v = value.trim()
  if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(v) || !/[1-9]/.test(v))
    throw usageError(`${flag} '${value}' is not a positive amount such as 12.5 (digits and one optional point)`)
  return v
}

export function tokenArg(value: string, flag: string): string {
  if (!/^[A-Za-z][A-Za-z0-9]{1,15}$/.test(value.trim()))
    throw usageError(`${flag} '${value}' is not a token symbol such as PUSD`)
  return value.trim().toUpperCase()
}

export function addressArg(value: string, flag: string): string {
  const v = value.trim()
  if (!/^0x[0-9a-fA-F]{40}$/.test(v))
    throw usageError(`${flag} '${value}' is not an EVM address: pass 0x followed by 40 hex digits`)
  if (/^0x0{40}$/.test(v)) throw usageError(`${flag} is the zero address; tokens sent there are lost`)
  return v
}

export function httpUrlArg(value: string, flag: string): string {
  let u: URL
  try {
    u = new URL(value.trim())
  } catch {
    throw usageError(`${flag} '${value}' is not a URL: pass an http:// or https:// URL`)
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname)
    throw usageError(`${flag} '${value}' must be an http:// or https:// URL`)
  return value.trim()
}

/** a < b for positive decimal strings, exactly (no floats). */
export function decimalLess(a: string, b: string): boolean {
  const [ai, af = ''] = a.split('.')
  const [bi, bf = ''] = b.split('.')
  const w = Math.max(af.length, bf.length)
  return BigInt(ai + af.padEnd(w, '0')) < BigInt(bi + bf.padEnd(w, '0'))
}
