import type { z } from 'zod'
import { BaseError } from '../../errors/index.js'
import type { CallOptions } from '../http.js'
import { KEY_HEADER } from './keys.js'
import { parsePlatform } from './parse.js'
import { type PlatformRoute, type PlatformRouteName, type PlatformRoutes, platformRoutes } from './routes.js'

export type PlatformClientParameters = {
  /** The platform base URL ({agents_url}), e.g. http://127.0.0.1:8420 */
  url: string
  userKey?: string
  agentKey?: string
  /** Only for createUser on the local profile. */
  operatorToken?: string
  /**
   * How a request travels; default the SDK's undici call (src/sdk/http.ts, loaded on first use).
   * The CLI passes its node:http one (src/cli/daemon-call.ts): undici costs a CLI process ~150 ms.
   */
  transport?: PlatformTransport
}

/** One JSON request; resolves to the parsed answer, rejects with ApiError or UnreachableError. */
export type PlatformTransport = (baseUrl: string, path: string, opts: CallOptions) => Promise<unknown>

const undiciTransport: PlatformTransport = async (baseUrl, path, opts) =>
  (await import('../http.js')).callJson<unknown>(baseUrl, path, opts)

/** What a route takes: path params, a query and a body, each only when the route has them (a query is optional). */
export type PlatformInput<R> = (R extends { params: infer P extends z.ZodTypeAny } ? { params: z.input<P> } : unknown) &
  (R extends { query: infer Q extends z.ZodTypeAny } ? { query?: z.input<Q> } : unknown) &
  (R extends { body: infer B extends z.ZodTypeAny } ? { body: z.input<B> } : unknown)
export type PlatformOutput<R> = R extends { response: infer S extends z.ZodTypeAny } ? z.output<S> : never

/** One method per route of the contract: what the CLI's commands take as their platform. */
export type PlatformMethods = Methods
/** Any route of the contract by its name: what each method of the client calls. */
export type PlatformCall = <N extends PlatformRouteName>(
  name: N,
  input: PlatformInput<PlatformRoutes[N]>,
) => Promise<PlatformOutput<PlatformRoutes[N]>>
type Methods = {
  [N in PlatformRouteName]: (input: PlatformInput<PlatformRoutes[N]>) => Promise<PlatformOutput<PlatformRoutes[N]>>
}

/**
 * A typed client of the agent payments platform, one method per route of the contract
 * (routes.ts), so the client and the daemon cannot disagree on a path or a body. Bodies are checked
 * locally first (a malformed amount never reaches the network) and answers are checked against the
 * contract. Failures are the SDK's ApiError (with the server's code) or UnreachableError.
 *
 * @example
 * const platform = createPlatformClient({ url: 'http://127.0.0.1:8420', agentKey })
 * const me = await platform.whoamiAgent({})
 * await platform.send({ params: { id: me.id }, body: { to, amount: '1.5' } })
 */
export function createPlatformClient(p: PlatformClientParameters): Methods & { call: PlatformCall } {
  function headersFor(name: string, auth: PlatformRoute['auth']): Record<string, string> {
    const need = (what: string, how: string): never => {
      throw new BaseError('UNAUTHORIZED', `${name} needs ${what}; ${how}`)
    }
    switch (auth) {
      case 'open':
        return {}
      case 'operator':
        return {
          authorization: `Bearer ${
            p.operatorToken ?? need('the operator token', 'it is in the data dir of a local daemon')
          }`,
        }
      case 'user':
        return { [KEY_HEADER.user]: p.userKey ?? need('a user key', 'log in with parx auth user login --user-key') }
      case 'agent':
        return { [KEY_HEADER.agent]: p.agentKey ?? need('an agent key', 'log in with parx agent login --agent-key') }
      case 'owner':
        // The agent's own key when both are set: an agent acting on itself is the common case.
        if (p.agentKey) return { [KEY_HEADER.agent]: p.agentKey }
        return {
          [KEY_HEADER.user]:
            p.userKey ?? need('an agent key or its user key', 'log in with parx agent login or parx auth user login'),
        }
    }
  }

  async function call<N extends PlatformRouteName>(
    name: N,
    input: PlatformInput<PlatformRoutes[N]>,
  ): Promise<PlatformOutput<PlatformRoutes[N]>> {
    const route = platformRoutes[name] as PlatformRoute
    const given = input as {
      params?: Record<string, string>
      query?: Record<string, string | undefined>
      body?: unknown
    }
    const params = route.params
      ? (parsePlatform(route.params, given.params ?? {}, 'path') as Record<string, string>)
      : {}
    const path = route.path.replace(/:(\w+)/g, (_, k: string) => encodeURIComponent(params[k]!))
    const body = route.body ? parsePlatform(route.body, given.body ?? {}, 'body') : undefined
    // Checked here, sent as given: a query's schema turns strings into values the daemon uses.
    if (route.query) parsePlatform(route.query, given.query ?? {}, 'query')
    const query = route.query ? given.query : undefined
    const answer = await (p.transport ?? undiciTransport)(p.url, path, {
      method: route.method,
      headers: headersFor(name, route.auth),
      body,
      query,
    })
    const checked = route.response.safeParse(answer)
    if (!checked.success) {
      const i = checked.error.issues[0]!
      throw new BaseError(
        'INTERNAL',
        `the platform's answer to ${route.method} ${route.path} does not match this client's ` +
          `contract at '${i.path.join('.')}': ${i.message}; client and daemon versions differ`,
      )
    }
    return checked.data as PlatformOutput<PlatformRoutes[N]>
  }

  const methods = Object.fromEntries(
    (Object.keys(platformRoutes) as PlatformRouteName[]).map((n) => [n, (input: never) => call(n, input)]),
  ) as unknown as Methods
  return { ...methods, call }
}

export type PlatformClient = ReturnType<typeof createPlatformClient>
