import type { SecurityRequirementObject, SecuritySchemeObject } from 'openapi3-ts/oas31'
import { CSRF_HEADER, SESSION_COOKIE } from '../../../src/sdk/dashboard/index.js'
import type { RouteAuth } from '../route.js'

/** Every credential a route may ask for (daemon/http/route.ts `RouteAuth`), as OpenAPI names it. */
export const securitySchemes: Record<string, SecuritySchemeObject> = {
  partnerKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description:
      'A partner key (`parx keys create`). Required on K routes when ' +
      'the deployment enforces keys (GET /api/config `auth.enforced`).',
  },
  userKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-user-key',
    description: 'A platform user key (docs/platform-api.md).',
  },
  agentKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-agent-key',
    description: 'A platform agent key: acts on its own agent only.',
  },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token (`parx keys operator-token`), as `Authorization: Bearer <token>`.',
  },
  dashboardSession: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: `A signed-in dashboard session; a POST or DELETE also carries its CSRF token in ${CSRF_HEADER}.`,
  },
}

/** Alternatives (any one suffices) for a route's `auth`; an open route needs none. */
export function securityOf(auth: RouteAuth): SecurityRequirementObject[] | undefined {
  switch (auth) {
    case 'open':
      return []
    case 'partner':
      return [{ partnerKey: [] }]
    case 'operator':
      return [{ operatorToken: [] }]
    case 'user':
      return [{ userKey: [] }]
    case 'agent':
      return [{ agentKey: [] }]
    // The owning user's key, or the agent's own key.
    case 'owner':
      return [{ userKey: [] }, { agentKey: [] }]
    case 'session':
      return [{ dashboardSession: [] }]
  }
}
