import { BaseError } from '../../errors/base.js'
import type { PlatformAuth, PlatformRouteName } from './routes.js'

/**
 * Method, path and auth of every platform route, without the zod schemas: what a client needs to
 * address a route, importable without zod or viem (the CLI's `parx whoami` starts in tens of
 * milliseconds). route-paths.test.ts checks it against routes.ts, the contract, entry by entry.
 */
export const platformRoutePaths = {
  createUser: { method: 'POST', path: '/api/operator/users', auth: 'operator' },
  whoamiUser: { method: 'GET', path: '/api/users/me', auth: 'user' },
  getUserLimits: { method: 'GET', path: '/api/users/me/limits', auth: 'user' },
  setUserLimits: { method: 'POST', path: '/api/users/me/limits', auth: 'user' },
  createAgent: { method: 'POST', path: '/api/agents', auth: 'user' },
  listAgents: { method: 'GET', path: '/api/agents', auth: 'user' },
  whoamiAgent: { method: 'GET', path: '/api/agents/me', auth: 'agent' },
  showAgent: { method: 'GET', path: '/api/agents/:id', auth: 'owner' },
  getLimits: { method: 'GET', path: '/api/agents/:id/limits', auth: 'owner' },
  setLimits: { method: 'POST', path: '/api/agents/:id/limits', auth: 'user' },
  createAgentKey: { method: 'POST', path: '/api/agents/:id/keys', auth: 'user' },
  listAgentKeys: { method: 'GET', path: '/api/agents/:id/keys', auth: 'user' },
  revokeAgentKey: { method: 'DELETE', path: '/api/agents/:id/keys/:keyId', auth: 'user' },
  getAgentPolicy: { method: 'GET', path: '/api/agents/:id/policy', auth: 'owner' },
  setAgentPolicy: { method: 'POST', path: '/api/agents/:id/policy', auth: 'user' },
  getUserPolicy: { method: 'GET', path: '/api/users/me/policy', auth: 'user' },
  setUserPolicy: { method: 'POST', path: '/api/users/me/policy', auth: 'user' },
  setDefaultPolicy: { method: 'POST', path: '/api/users/me/policy/default', auth: 'user' },
  freezeAgent: { method: 'POST', path: '/api/agents/:id/freeze', auth: 'user' },
  unfreezeAgent: { method: 'POST', path: '/api/agents/:id/unfreeze', auth: 'user' },
  freezeAllAgents: { method: 'POST', path: '/api/users/me/freeze', auth: 'user' },
  unfreezeAllAgents: { method: 'POST', path: '/api/users/me/unfreeze', auth: 'user' },
  listApprovals: { method: 'GET', path: '/api/approvals', auth: 'user' },
  showApproval: { method: 'GET', path: '/api/approvals/:approvalId', auth: 'owner' },
  approveApproval: { method: 'POST', path: '/api/approvals/:approvalId/approve', auth: 'user' },
  denyApproval: { method: 'POST', path: '/api/approvals/:approvalId/deny', auth: 'user' },
  listAgentApprovals: { method: 'GET', path: '/api/agents/:id/approvals', auth: 'owner' },
  listAlertRules: { method: 'GET', path: '/api/alerts', auth: 'user' },
  createAlertRule: { method: 'POST', path: '/api/alerts', auth: 'user' },
  deleteAlertRule: { method: 'DELETE', path: '/api/alerts/:ruleId', auth: 'user' },
  listAlertHistory: { method: 'GET', path: '/api/alerts/history', auth: 'user' },
  balance: { method: 'GET', path: '/api/agents/:id/balance', auth: 'owner' },
  send: { method: 'POST', path: '/api/agents/:id/send', auth: 'owner' },
  swap: { method: 'POST', path: '/api/agents/:id/swap', auth: 'owner' },
  pay: { method: 'POST', path: '/api/agents/:id/pay', auth: 'owner' },
  listPayments: { method: 'GET', path: '/api/agents/:id/payments', auth: 'owner' },
  report: { method: 'GET', path: '/api/agents/:id/report', auth: 'owner' },
  listReceipts: { method: 'GET', path: '/api/agents/:id/receipts', auth: 'owner' },
  showReceipt: { method: 'GET', path: '/api/agents/:id/receipts/:paymentId', auth: 'owner' },
  listChannels: { method: 'GET', path: '/api/agents/:id/channels', auth: 'owner' },
  refundChannel: { method: 'POST', path: '/api/agents/:id/channels/:channelId/refund', auth: 'owner' },
  withdrawChannel: { method: 'POST', path: '/api/agents/:id/channels/:channelId/withdraw', auth: 'owner' },
  createEndpoint: { method: 'POST', path: '/api/endpoints', auth: 'user' },
  listEndpoints: { method: 'GET', path: '/api/endpoints', auth: 'user' },
  showEndpoint: { method: 'GET', path: '/api/endpoints/:id', auth: 'user' },
  updateEndpoint: { method: 'POST', path: '/api/endpoints/:id', auth: 'user' },
  deleteEndpoint: { method: 'DELETE', path: '/api/endpoints/:id', auth: 'user' },
  refundPayment: { method: 'POST', path: '/api/refunds', auth: 'user' },
  manifest: { method: 'GET', path: '/api/manifest', auth: 'open' },
} as const satisfies Record<PlatformRouteName, { method: 'GET' | 'POST' | 'DELETE'; path: string; auth: PlatformAuth }>

/** A route's path with its `:params` filled in (URI-encoded). */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/:(\w+)/g, (_, k: string) => {
    const v = params[k]
    if (v === undefined) throw new BaseError('BAD_REQUEST', `${path} needs the path parameter ${k}`)
    return encodeURIComponent(v)
  })
}
