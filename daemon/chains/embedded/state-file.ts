import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { BaseError } from '../../../src/errors/index.js'

/**
 * The embedded chain's state file (`chains/<network>.json`) and what anvil writes beside it.
 *
 * parx writes the state file itself, whole and then renamed into place (./state-dumper.ts), so it
 * is never cut short. anvil writes only on its way out (SIGTERM from a clean stop, or the kernel's
 * parent-death signal when the daemon died), to `<state>.exit`, in place: a kill during that write
 * cuts it short. So the exit dump is taken over the state file only when it is whole and newer.
 */

/** Whether a state file is complete JSON. */
export function isWhole(path: string): boolean {
  try {
    const text = readFileSync(path, 'utf8')
    if (!text.trimEnd().endsWith('}')) return false
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export const exitDumpOf = (statePath: string) => `${statePath}.exit`

/**
 * After anvil stopped, or before it starts again: anvil's exit dump replaces the state file when it
 * is whole and newer (it holds what happened after parx's last write); otherwise it is dropped.
 */
export function adoptExitDump(statePath: string, warn: (message: string) => void): void {
  const exit = exitDumpOf(statePath)
  if (!existsSync(exit)) return
  const newer = !existsSync(statePath) || statSync(exit).mtimeMs >= statSync(statePath).mtimeMs
  if (newer && isWhole(exit)) {
    renameSync(exit, statePath)
    return
  }
  if (newer)
    warn(
      `${exit} was cut short (the chain was killed while writing it on its way out); the ` +
        `chain starts from ${statePath}, and transactions we signed since then are replayed`,
    )
  rmSync(exit, { force: true })
}

/**
 * Below this size a state file is parsed in full before anvil starts; a larger one only has its
 * ends looked at (parsing it costs the start tens of ms), and a fault inside is found by anvil,
 * which refuses to load it: that refusal is reported as this one is (./anvil.ts).
 */
const PARSE_BELOW_BYTES = 1 << 20

/**
 * A file too big to parse whose first and last bytes past ASCII whitespace are `{` and `}`: told
 * from its ends alone, without reading it all (a start checks each state file twice; local-base's
 * grows to megabytes). Anything else (small, or ends that are not plainly those) is looked at whole.
 */
function wholeByItsEnds(path: string): boolean {
  let fd: number | undefined
  try {
    const size = statSync(path).size
    if (size < PARSE_BELOW_BYTES) return false
    fd = openSync(path, 'r')
    const n = 4096
    const head = Buffer.alloc(n)
    const tail = Buffer.alloc(n)
    readSync(fd, head, 0, n, 0)
    readSync(fd, tail, 0, n, size - n)
    const space = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d
    const first = head.findIndex((b) => !space(b))
    let last = n - 1
    while (last >= 0 && space(tail[last]!)) last--
    return first >= 0 && last >= 0 && head[first] === 0x7b && tail[last] === 0x7d
  } catch {
    return false
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** What is wrong with a state file that cannot be read, in words; undefined when it looks like a whole anvil state. */
export function unreadableReason(path: string): string | undefined {
  if (wholeByItsEnds(path)) return undefined
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (e) {
    return `cannot be opened (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`
  }
  if (bytes.length === 0) return 'empty file'
  const text = bytes.toString('utf8')
  const body = text.trim()
  if (body.length === 0) return `only whitespace (${bytes.length} bytes)`
  if (!body.startsWith('{')) {
    const head = body.slice(0, 16).replace(/[^\x20-\x7e]/g, '?')
    return `not JSON: starts with '${head}${body.length > 16 ? '…' : ''}'`
  }
  if (!body.endsWith('}')) return `truncated JSON at byte ${bytes.length}`
  if (bytes.length >= PARSE_BELOW_BYTES) return undefined
  let state: unknown
  try {
    state = JSON.parse(text)
  } catch (e) {
    const message = (e as Error).message
    const at = /position (\d+)/.exec(message)
    if (!at || /end of JSON input/.test(message)) return `truncated JSON at byte ${bytes.length}`
    return `invalid JSON at byte ${Buffer.byteLength(text.slice(0, Number(at[1])))}`
  }
  const o = state as Record<string, unknown> | null
  if (
    typeof o !== 'object' ||
    o === null ||
    Array.isArray(o) ||
    typeof o.accounts !== 'object' ||
    typeof o.block !== 'object'
  ) {
    return 'JSON, but not an anvil state (no "block" and "accounts")'
  }
  return undefined
}

/** The start refused over an unreadable state file: what was found, and the three ways on. */
export function unreadableStateError(
  statePath: string,
  name: string,
  reason: string,
  candidates: string[] = [],
): BaseError {
  const stat = statSync(statePath, { throwIfNoEntry: false })
  const found = stat ? ` (${stat.size} bytes, written ${stat.mtime.toISOString()})` : ''
  const copies = candidates
    .map((f) => `; a complete earlier copy is ${f} (written ${statSync(f).mtime.toISOString()})`)
    .join('')
  return new BaseError(
    'CHAIN_STATE_UNREADABLE',
    `${statePath} cannot be read: ${reason}${found}. The ${name} chain was not started and nothing was ` +
      `changed: restore the file from a backup${copies}, start everything over with --fresh, or start only ` +
      `this chain over with --reset-chain ${name} (what the store records on it will then disagree with the chain)`,
  )
}

export type PrepareStateFileOptions = {
  /** The chain's network key (`local-base`): what `--reset-chain` takes. */
  name: string
  /** Start this chain over: its state file is moved aside, kept by name. */
  reset?: boolean
  warn: (message: string) => void
  now?: () => number
}

/**
 * Before anvil starts: anvil's exit dump taken over when it is whole and newer, leftovers of a
 * write parx did not finish (`.tmp`) and of older releases (`.good`) removed, and then a state file
 * that cannot be read refuses the start (CHAIN_STATE_UNREADABLE) instead of starting the chain
 * empty: the store still records what happened on it (balances, payments, sends, swaps), and an
 * empty chain would silently disagree. Since parx writes the file whole and renames it into place
 * (./state-dumper.ts), no crash of this release leaves it unreadable, so an unreadable file is
 * never taken for one cut short and guessed at. `reset` (`parx serve --reset-chain <name>`) is the
 * explicit way out: the file is moved aside and the chain starts over.
 */
export function prepareStateFile(statePath: string, o: PrepareStateFileOptions): void {
  const exit = exitDumpOf(statePath)
  const tmp = `${statePath}.tmp`
  const good = `${statePath}.good`
  // Beside an unreadable state file, an exit dump that is not to be taken over (cut short, or
  // older) is left for the user to look at, as is everything else: the refusal changes nothing.
  const keepExit =
    existsSync(statePath) &&
    existsSync(exit) &&
    unreadableReason(statePath) !== undefined &&
    !(isWhole(exit) && statSync(exit).mtimeMs >= statSync(statePath).mtimeMs)
  if (!keepExit) adoptExitDump(statePath, o.warn)
  const exists = existsSync(statePath)
  const reason = exists ? unreadableReason(statePath) : undefined
  if (o.reset) {
    rmSync(tmp, { force: true })
    rmSync(good, { force: true })
    if (!exists) return
    const aside = `${statePath}.reset-${(o.now ?? Date.now)()}`
    renameSync(statePath, aside)
    o.warn(
      `${o.name} starts over from an empty chain (--reset-chain); its old state file ` +
        `is kept at ${aside}. Contracts are deployed again; balances and transactions ` +
        `that were on it are gone, while the store keeps its records of them (payments, ` +
        `sends, swaps, faucet mints): those records now disagree with the chain`,
    )
    return
  }
  if (reason === undefined) {
    // What a write parx did not finish left, and the copy an earlier release kept beside the
    // state file (nothing reads it any more).
    rmSync(tmp, { force: true })
    if (exists) rmSync(good, { force: true })
    return
  }
  const candidates = [tmp, exit, good].filter((f) => existsSync(f) && unreadableReason(f) === undefined)
  throw unreadableStateError(statePath, o.name, reason, candidates)
}
