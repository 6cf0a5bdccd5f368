import type { PlatformMethods } from '../sdk/platform/client.js'
import { KEY_HEADER } from '../sdk/platform/keys.js'
import { fillPath, platformRoutePaths } from '../sdk/platform/route-paths.js'
import type { PlatformAuth, PlatformRouteName } from '../sdk/platform/routes.js'
import { callDaemon } from './daemon-call.js'
import { CliError } from './errors.js'

/** What every platform command takes as its platform: one method per route (tests pass a small fake). */
export type PlatformApi = PlatformMethods

export type PlatformConnection = { url: string; userKey?: string; agentKey?: string; operatorToken?: string }

const loginHint: Record<'user' | 'agent', string> = {
  user: 'log in with `parx auth user login --user-key <key>` or set PARX_USER_KEY',
  agent: 'log in with `parx agent login --agent-key <key>` or set PARX_AGENT_KEY',
}

/**
 * The CLI's platform client: the contract's paths and auth (route-paths.ts) over node:http
 * (callDaemon), without zod or viem, so `parx whoami` loads neither. Flags are checked by each
 * command before a request; answers are trusted as the contract types them (the SDK's
 * createPlatformClient checks them with zod for programs that can afford the load).
 */
export function createCliPlatform(c: PlatformConnection): PlatformApi {
  const headersFor = (name: string, auth: PlatformAuth): Record<string, string> => {
    switch (auth) {
      case 'open':
        return {}
      case 'operator':
        if (!c.operatorToken)
          throw new CliError(
            'NO_CREDENTIALS',
            `${name} needs the operator token: pass --operator-token or run it beside a local \`parx serve\``,
          )
        return { authorization: `Bearer ${c.operatorToken}` }
      case 'user':
        if (!c.userKey)
          throw new CliError('NO_CREDENTIALS', `this command acts as a user and no user key is set: ${loginHint.user}`)
        return { [KEY_HEADER.user]: c.userKey }
      case 'agent':
        if (!c.agentKey)
          throw new CliError(
            'NO_CREDENTIALS',
            `this command acts as an agent and no agent key is set: ${loginHint.agent}`,
          )
        return { [KEY_HEADER.agent]: c.agentKey }
      case 'owner':
        // The agent's own key when both are set: an agent acting on itself is the common case.
        if (c.agentKey) return { [KEY_HEADER.agent]: c.agentKey }
        if (c.userKey) return { [KEY_HEADER.user]: c.userKey }
        throw new CliError(
          'NO_CREDENTIALS',
          `this command needs an agent key or its owner's user key: ${loginHint.agent}`,
        )
    }
  }
  const target = { apiUrl: c.url }
  const call = async (
    name: PlatformRouteName,
    input: { params?: Record<string, string>; query?: Record<string, string | undefined>; body?: unknown },
  ) => {
    const r = platformRoutePaths[name]
    const headers = headersFor(name, r.auth)
    return callDaemon<unknown>(target, fillPath(r.path, input?.params), {
      method: r.method,
      headers,
      query: input?.query,
      body: r.method === 'POST' ? (input?.body ?? {}) : undefined,
    })
  }
  return Object.fromEntries(
    Object.keys(platformRoutePaths).map((n) => [n, (input: never) => call(n as PlatformRouteName, input)]),
  ) as unknown as PlatformApi
}
