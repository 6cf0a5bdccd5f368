import { readFile } from 'node:fs/promises'
import { PAY_METHODS, payBody, RESERVED_HEADERS } from '../../sdk/platform/pay.js'
import { usageError } from '../errors.js'

/** The request pay forwards to the seller: what the platform's pay body takes besides the URL. */
export type SellerRequest = { method: (typeof PAY_METHODS)[number]; headers: Record<string, string>; body?: string }

/**
 * How the request is described: curl's flags on the command line (`-X`, `-H 'Name: value'`, `-d`,
 * `--json`), or the MCP tool's fields (`method`, `headers`, `body`). Messages name what was typed.
 */
export type RequestInput = {
  method?: string
  /** `-H 'Name: value'`, repeatable; a later one of the same name wins. */
  header?: string[]
  /** The MCP tool's headers, already split. */
  headers?: Record<string, string>
  /** `-d`: text, `@file`, or `@-` for standard input; sent as is (like curl's --data-binary). */
  data?: string
  /** `--json`: as -d, and sets content-type and accept to application/json (as curl's --json). */
  json?: string
  /** The MCP tool's body: literal text, never a file name. */
  body?: string
}

export type RequestNames = { method: string; header: string; body: string }
export const cliNames: RequestNames = { method: '-X/--method', header: '-H/--header', body: '-d/--data' }
export const mcpNames: RequestNames = { method: 'method', header: 'headers', body: 'body' }
/** How each way of giving a body is named when two were given. */
const BODY_FLAGS = { data: '-d/--data', json: '--json', body: 'body' } as const

/**
 * Builds the seller request as curl would: -d and --json imply POST unless -X is given, -d sets
 * the form content type and --json the JSON one unless a -H names it. What the platform would refuse
 * (a reserved header, a body on GET, a method it does not forward) is refused here, before anything
 * is sent, with the flag that was typed.
 */
export async function sellerRequest(
  url: string,
  input: RequestInput,
  opts: { names?: RequestNames; stdin?: () => Promise<Buffer> } = {},
): Promise<SellerRequest> {
  const names = opts.names ?? cliNames
  const given = (['data', 'json', 'body'] as const).filter((k) => input[k] !== undefined)
  if (given.length > 1)
    throw usageError(`give the body once: ${given.map((k) => BODY_FLAGS[k]).join(' and ')} were both given`)
  const bodyFlag = input.json !== undefined ? '--json' : names.body
  const body =
    input.body ??
    (input.data !== undefined
      ? await bodyArg(input.data, '-d/--data', opts.stdin)
      : input.json !== undefined
        ? await bodyArg(input.json, '--json', opts.stdin)
        : undefined)

  const headers: Record<string, string> = {}
  const set = (name: string, value: string) => {
    for (const k of Object.keys(headers)) if (k.toLowerCase() === name.toLowerCase()) delete headers[k]
    headers[name] = value
  }
  const defaults =
    input.json !== undefined
      ? { 'content-type': 'application/json', accept: 'application/json' }
      : input.data !== undefined
        ? { 'content-type': 'application/x-www-form-urlencoded' }
        : {}
  for (const [k, v] of Object.entries(defaults)) set(k, v)
  const typed = [...(input.header ?? []).map((h) => headerArg(h, names.header)), ...Object.entries(input.headers ?? {})]
  for (const [name, value] of typed) {
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
      throw usageError(`${names.header} '${name}': a header name has characters HTTP does not allow`)
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw usageError(
        `${names.header} '${name}' is refused: pay may not set ${[...RESERVED_HEADERS].join(', ')} (the ` +
          `platform sets the payment and connection headers itself, and the agent's keys never go to a seller)`,
      )
    }
    set(name, value)
  }

  let method: SellerRequest['method']
  if (input.method !== undefined) {
    const m = input.method.trim().toUpperCase()
    if (!(PAY_METHODS as readonly string[]).includes(m))
      throw usageError(`${names.method} '${input.method}': pay forwards ${PAY_METHODS.join(', ')}`)
    method = m as SellerRequest['method']
  } else method = body !== undefined ? 'POST' : 'GET'
  if (method === 'GET' && body !== undefined) {
    throw usageError(
      `a GET has no body: ${
        names === cliNames
          ? `drop -X GET (${bodyFlag} implies POST) or pass -X POST`
          : 'pass method POST (or PUT, PATCH, DELETE)'
      }`,
    )
  }

  // The contract's own checks (sizes, counts), so that nothing the platform would refuse as 400 is sent.
  const req: SellerRequest = { method, headers, ...(body !== undefined ? { body } : {}) }
  const checked = payBody.safeParse({ url, ...req })
  if (!checked.success) {
    const issue = checked.error.issues[0]!
    const where =
      issue.path[0] === 'headers'
        ? names.header
        : issue.path[0] === 'body'
          ? bodyFlag
          : issue.path[0] === 'method'
            ? names.method
            : String(issue.path[0] ?? 'request')
    throw usageError(`${where}: ${issue.message}`)
  }
  return req
}

/** `Name: value` as curl takes it; the value may be empty (`Name:`). */
function headerArg(h: string, flag: string): [string, string] {
  const i = h.indexOf(':')
  if (i <= 0) throw usageError(`${flag} '${h}' is not 'Name: value'`)
  return [h.slice(0, i).trim(), h.slice(i + 1).trim()]
}

/**
 * A body flag's value: the text itself, `@file`, or `@-` (standard input); text only, as the platform forwards text.
 */
async function bodyArg(v: string, flag: string, stdin?: () => Promise<Buffer>): Promise<string> {
  if (!v.startsWith('@')) return v
  const path = v.slice(1)
  let bytes: Buffer
  if (path === '-') bytes = await (stdin ?? readStdin)()
  else {
    try {
      bytes = await readFile(path)
    } catch (e) {
      throw usageError(
        `${flag} @${path}: cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      )
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw usageError(`${flag} ${v}: not UTF-8 text; the platform forwards text bodies only`)
  }
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}
