import type { z } from 'zod'
import type { ErrorCode } from '../../errors/codes.js'
import * as A from './agents.js'
import * as AL from './alerts.js'
import * as AP from './approvals.js'
import { channelList, channelParams, channelRefund, channelWithdraw } from './channels.js'
import * as E from './endpoints.js'
import { paymentsPage, paymentsQuery, report, reportQuery } from './history.js'
import { limits, setLimitsBody, setUserLimitsBody, userLimits } from './limits.js'
import { manifest } from './manifest.js'
import { payAnswer, payBody } from './pay.js'
import { agentPolicy, setDefaultPolicyBody, setPayeeRulesBody, userPolicy } from './policy.js'
import { receiptParams, receiptsPage, receiptsQuery, signedReceipt } from './receipts.js'
import { refundAnswer, refundBody } from './refunds.js'
import { createdUser, createUserBody, user } from './users.js'
import { balance, sendBody, sendResult, swapBody, swapResult } from './wallet.js'

/**
 * Who may call a route. user: a user key (x-user-key). agent: an agent key (x-agent-key), acting on
 * its own agent only. owner: the owning user's key or that agent's own key. operator: the operator
 * bearer token. open: nobody needs a key.
 */
export type PlatformAuth = 'open' | 'operator' | 'user' | 'agent' | 'owner'

export type PlatformRoute = {
  method: 'GET' | 'POST' | 'DELETE'
  /** Hono-style path; `:id` and `:keyId` are filled from `params`. */
  path: string
  auth: PlatformAuth
  summary: string
  params?: z.ZodTypeAny
  /** Query string parameters (strings on the wire), for GET routes that filter or page. */
  query?: z.ZodTypeAny
  body?: z.ZodTypeAny
  response: z.ZodTypeAny
  /** Codes this route answers with beyond the ones every route may (see COMMON_ERRORS). */
  errors: readonly ErrorCode[]
}

/** Any route may answer these: bad JSON, a body not sent as JSON, bad fields, a bad key, rate limiting, a bug. */
export const COMMON_ERRORS = [
  'BAD_REQUEST',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'INTERNAL',
] as const

/**
 * Resource routes: another tenant's agent or endpoint is NOT_FOUND (its existence is not revealed); the wrong kind of
 * key is FORBIDDEN.
 */
const TENANT = ['NOT_FOUND', 'FORBIDDEN'] as const
/** Routes that move funds. */
const SPENDS = [
  ...TENANT,
  'AGENT_FROZEN',
  'APPROVAL_REQUIRED',
  'APPROVAL_NOT_USABLE',
  'LIMIT_EXCEEDED',
  'UNKNOWN_TOKEN',
  'INSUFFICIENT_BALANCE',
  'CHAIN_UNAVAILABLE',
  'RELAY_FAILED',
] as const

/**
 * The platform's HTTP contract, as data. The daemon's routes and the typed client both read it, so
 * no path or body shape is written twice. docs/platform-api.md describes each with an example.
 */
export const platformRoutes = {
  createUser: {
    method: 'POST',
    path: '/api/operator/users',
    auth: 'operator',
    summary: 'create a user and print its user key (local profile; scripts and CI)',
    body: createUserBody,
    response: createdUser,
    errors: ['ALREADY_EXISTS', 'PROFILE_ONLY'],
  },
  whoamiUser: {
    method: 'GET',
    path: '/api/users/me',
    auth: 'user',
    summary: 'the user the key belongs to',
    response: user,
    errors: ['FORBIDDEN'],
  },
  getUserLimits: {
    method: 'GET',
    path: '/api/users/me/limits',
    auth: 'user',
    summary:
      "the user's budgets across all its agents (per payment; " +
      'rolling hour, day, week, month) and what each window has left',
    response: userLimits,
    errors: ['FORBIDDEN'],
  },
  setUserLimits: {
    method: 'POST',
    path: '/api/users/me/limits',
    auth: 'user',
    summary: "set or clear the user's budgets across all its agents",
    body: setUserLimitsBody,
    response: userLimits,
    errors: ['FORBIDDEN'],
  },
  createAgent: {
    method: 'POST',
    path: '/api/agents',
    auth: 'user',
    summary: 'create an agent with a new wallet on a network',
    body: A.createAgentBody,
    response: A.agent,
    errors: ['FORBIDDEN', 'NETWORK_UNSUPPORTED', 'CHAIN_UNAVAILABLE', 'QUOTA_EXCEEDED'],
  },
  listAgents: {
    method: 'GET',
    path: '/api/agents',
    auth: 'user',
    summary: "the user's agents",
    response: A.agentList,
    errors: ['FORBIDDEN'],
  },
  whoamiAgent: {
    method: 'GET',
    path: '/api/agents/me',
    auth: 'agent',
    summary: 'the agent the key belongs to: id, network, wallet, tokens',
    response: A.agentMe,
    errors: ['FORBIDDEN'],
  },
  showAgent: {
    method: 'GET',
    path: '/api/agents/:id',
    auth: 'owner',
    summary: 'one agent',
    params: A.agentParams,
    response: A.agent,
    errors: TENANT,
  },
  getLimits: {
    method: 'GET',
    path: '/api/agents/:id/limits',
    auth: 'owner',
    summary: "the agent's spending limits and what each window (agent and user) has left: what it may still spend",
    params: A.agentParams,
    response: limits,
    errors: TENANT,
  },
  setLimits: {
    method: 'POST',
    path: '/api/agents/:id/limits',
    auth: 'user',
    summary: 'set or clear spending limits (owning user only)',
    params: A.agentParams,
    body: setLimitsBody,
    response: limits,
    errors: TENANT,
  },
  createAgentKey: {
    method: 'POST',
    path: '/api/agents/:id/keys',
    auth: 'user',
    summary: 'create an agent key (shown once)',
    params: A.agentParams,
    body: A.createAgentKeyBody,
    response: A.createdAgentKey,
    errors: [...TENANT, 'QUOTA_EXCEEDED'],
  },
  listAgentKeys: {
    method: 'GET',
    path: '/api/agents/:id/keys',
    auth: 'user',
    summary: "the agent's keys, masked",
    params: A.agentParams,
    response: A.agentKeyList,
    errors: TENANT,
  },
  revokeAgentKey: {
    method: 'DELETE',
    path: '/api/agents/:id/keys/:keyId',
    auth: 'user',
    summary: 'revoke an agent key at once (idempotent)',
    params: A.agentKeyParams,
    response: A.agentKeyInfo,
    errors: TENANT,
  },
  getAgentPolicy: {
    method: 'GET',
    path: '/api/agents/:id/policy',
    auth: 'owner',
    summary: "the agent's payee and network rules (hosts, payTo, networks, tokens) and its user's, which apply too",
    params: A.agentParams,
    response: agentPolicy,
    errors: TENANT,
  },
  setAgentPolicy: {
    method: 'POST',
    path: '/api/agents/:id/policy',
    auth: 'user',
    summary:
      "set or clear the agent's payee and network rules (a list " +
      'left out stays; null clears it; clear: true clears all first)',
    params: A.agentParams,
    body: setPayeeRulesBody,
    response: agentPolicy,
    errors: TENANT,
  },
  getUserPolicy: {
    method: 'GET',
    path: '/api/users/me/policy',
    auth: 'user',
    summary: "the user's rules for all its agents and its default policy for agents created later",
    response: userPolicy,
    errors: ['FORBIDDEN'],
  },
  setUserPolicy: {
    method: 'POST',
    path: '/api/users/me/policy',
    auth: 'user',
    summary: "set or clear the user's payee and network rules, which apply to every agent of the user at once",
    body: setPayeeRulesBody,
    response: userPolicy,
    errors: ['FORBIDDEN'],
  },
  setDefaultPolicy: {
    method: 'POST',
    path: '/api/users/me/policy/default',
    auth: 'user',
    summary: 'set the default policy (rules and limits) copied into each agent the user creates afterwards',
    body: setDefaultPolicyBody,
    response: userPolicy,
    errors: ['FORBIDDEN'],
  },
  freezeAgent: {
    method: 'POST',
    path: '/api/agents/:id/freeze',
    auth: 'user',
    summary:
      'freeze the agent at once on every replica: its pays, sends, swaps ' +
      'and channel deposits are refused (AGENT_FROZEN) until unfrozen',
    params: A.agentParams,
    response: A.agent,
    errors: TENANT,
  },
  unfreezeAgent: {
    method: 'POST',
    path: '/api/agents/:id/unfreeze',
    auth: 'user',
    summary:
      'let a frozen agent spend again (FORBIDDEN for a user key where the deployment requires a dashboard sign-in)',
    params: A.agentParams,
    response: A.agent,
    errors: TENANT,
  },
  freezeAllAgents: {
    method: 'POST',
    path: '/api/users/me/freeze',
    auth: 'user',
    summary: 'freeze every agent of the user in one step (agents created later are not frozen)',
    response: A.agentList,
    errors: ['FORBIDDEN'],
  },
  unfreezeAllAgents: {
    method: 'POST',
    path: '/api/users/me/unfreeze',
    auth: 'user',
    summary: 'unfreeze every agent of the user (same rule as unfreeze)',
    response: A.agentList,
    errors: ['FORBIDDEN'],
  },
  listApprovals: {
    method: 'GET',
    path: '/api/approvals',
    auth: 'user',
    summary:
      "the user's approvals: pays and sends above an agent's approveAboveUsd, " +
      'held (nothing signed) until approved or denied; pending by default',
    query: AP.approvalsQuery,
    response: AP.approvalList,
    errors: ['FORBIDDEN'],
  },
  showApproval: {
    method: 'GET',
    path: '/api/approvals/:approvalId',
    auth: 'owner',
    summary:
      'one approval and its state (the owning user, or the agent it was asked for: what `pay --wait-approval` polls)',
    params: AP.approvalParams,
    response: AP.approval,
    errors: TENANT,
  },
  approveApproval: {
    method: 'POST',
    path: '/api/approvals/:approvalId/approve',
    auth: 'user',
    summary:
      "approve a pending approval: the agent's same request with approvalId " +
      'is then signed and paid once, within its limits at that moment',
    params: AP.approvalParams,
    response: AP.approval,
    errors: [...TENANT, 'APPROVAL_NOT_PENDING'],
  },
  denyApproval: {
    method: 'POST',
    path: '/api/approvals/:approvalId/deny',
    auth: 'user',
    summary: 'deny a pending approval: nothing is ever signed for it',
    params: AP.approvalParams,
    response: AP.approval,
    errors: [...TENANT, 'APPROVAL_NOT_PENDING'],
  },
  listAgentApprovals: {
    method: 'GET',
    path: '/api/agents/:id/approvals',
    auth: 'owner',
    summary: "the agent's pending approvals (what the agent waits for), newest first",
    params: A.agentParams,
    response: AP.approvalList,
    errors: TENANT,
  },
  listAlertRules: {
    method: 'GET',
    path: '/api/alerts',
    auth: 'user',
    summary:
      "the user's alert rules (budget crossed at N%, payment above X, new payee " +
      'host, N refusals in M minutes, spend rate over K times the 7-day average)',
    response: AL.alertRuleList,
    errors: ['FORBIDDEN'],
  },
  createAlertRule: {
    method: 'POST',
    path: '/api/alerts',
    auth: 'user',
    summary:
      "add an alert rule, for all the user's agents or one (agentId); each fires " +
      "once per crossing, to the user's endpoint webhooks and the alert history",
    body: AL.createAlertRuleBody,
    response: AL.alertRule,
    errors: [...TENANT, 'QUOTA_EXCEEDED'],
  },
  deleteAlertRule: {
    method: 'DELETE',
    path: '/api/alerts/:ruleId',
    auth: 'user',
    summary: 'remove an alert rule (the alerts it fired stay in the history)',
    params: AL.alertRuleParams,
    response: AL.deletedAlertRule,
    errors: TENANT,
  },
  listAlertHistory: {
    method: 'GET',
    path: '/api/alerts/history',
    auth: 'user',
    summary: "the alerts the user's rules fired, newest first: when, which rule, which agent, the figures",
    query: AL.alertHistoryQuery,
    response: AL.alertHistory,
    errors: ['FORBIDDEN'],
  },
  balance: {
    method: 'GET',
    path: '/api/agents/:id/balance',
    auth: 'owner',
    summary: "the agent wallet's token balances",
    params: A.agentParams,
    response: balance,
    errors: [...TENANT, 'CHAIN_UNAVAILABLE'],
  },
  send: {
    method: 'POST',
    path: '/api/agents/:id/send',
    auth: 'owner',
    summary: 'send tokens: a sponsored user operation on AA networks, a plain transfer on direct ones',
    params: A.agentParams,
    body: sendBody,
    response: sendResult,
    errors: [...SPENDS, 'BUNDLER_UNAVAILABLE'],
  },
  swap: {
    method: 'POST',
    path: '/api/agents/:id/swap',
    auth: 'owner',
    summary: 'swap on Base through the swap API (USDC->TOKEN_A, TOKEN_A->TOKEN_B, TOKEN_B->TOKEN_A)',
    params: A.agentParams,
    body: swapBody,
    response: swapResult,
    errors: [
      ...SPENDS,
      'NETWORK_UNSUPPORTED',
      'UNSUPPORTED_PAIR',
      'INVENTORY_SHORT',
      'AMOUNT_TOO_LARGE',
      'SIMULATION_FAILED',
    ],
  },
  pay: {
    method: 'POST',
    path: '/api/agents/:id/pay',
    auth: 'owner',
    summary: "fetch a 402-gated URL, pay the seller's price, return its answer and a receipt",
    params: A.agentParams,
    body: payBody,
    response: payAnswer,
    errors: [
      ...SPENDS,
      'PRICE_ABOVE_MAX',
      'SELLER_TERMS_MALFORMED',
      'SELLER_METHOD_UNSUPPORTED',
      'PAYMENT_REFUSED',
      'SELLER_FAILED',
      'QUOTA_EXCEEDED',
      'CHANNEL_TERMS_REFUSED',
      'CHANNEL_TERMS_CHANGED',
      'CHANNEL_WITHDRAW_PENDING',
    ],
  },
  listPayments: {
    method: 'GET',
    path: '/api/agents/:id/payments',
    auth: 'owner',
    summary: "the agent's pays, sends and swaps, newest first, filtered by since/until/kind/host and paged by cursor",
    params: A.agentParams,
    query: paymentsQuery,
    response: paymentsPage,
    errors: TENANT,
  },
  report: {
    method: 'GET',
    path: '/api/agents/:id/report',
    auth: 'owner',
    summary: "the agent's spending totals per day, host, token and kind over a window, with its limits",
    params: A.agentParams,
    query: reportQuery,
    response: report,
    errors: TENANT,
  },
  listReceipts: {
    method: 'GET',
    path: '/api/agents/:id/receipts',
    auth: 'owner',
    summary:
      "the agent's signed payment receipts (EIP-712, signer in the " +
      'manifest), newest first, filtered by since/until and paged by cursor',
    params: A.agentParams,
    query: receiptsQuery,
    response: receiptsPage,
    errors: TENANT,
  },
  showReceipt: {
    method: 'GET',
    path: '/api/agents/:id/receipts/:paymentId',
    auth: 'owner',
    summary: 'the signed receipt of one settled pay, by its payment id',
    params: receiptParams,
    response: signedReceipt,
    errors: TENANT,
  },
  listChannels: {
    method: 'GET',
    path: '/api/agents/:id/channels',
    auth: 'owner',
    summary: "the agent's x402 batch-settlement channels: deposited, charged, refunded and unspent per seller",
    params: A.agentParams,
    response: channelList,
    errors: TENANT,
  },
  refundChannel: {
    method: 'POST',
    path: '/api/agents/:id/channels/:channelId/refund',
    auth: 'owner',
    summary: "ask the seller to refund the channel's unspent deposit to the agent's wallet (cooperative refund)",
    params: channelParams,
    response: channelRefund,
    errors: [
      ...TENANT,
      'CHANNEL_REFUND_REFUSED',
      'SELLER_FAILED',
      'CHANNEL_TERMS_REFUSED',
      'CHAIN_UNAVAILABLE',
      'EGRESS_REFUSED',
    ],
  },
  withdrawChannel: {
    method: 'POST',
    path: '/api/agents/:id/channels/:channelId/withdraw',
    auth: 'owner',
    summary:
      "the payer's own way out of a channel: the first call starts the on-chain " +
      "withdrawal of what is unclaimed, one after the channel's delay finalizes it",
    params: channelParams,
    response: channelWithdraw,
    errors: [
      ...TENANT,
      'CHANNEL_WITHDRAW_PENDING',
      'NOTHING_TO_WITHDRAW',
      'CHAIN_UNAVAILABLE',
      'RELAY_FAILED',
      'BUNDLER_UNAVAILABLE',
    ],
  },
  createEndpoint: {
    method: 'POST',
    path: '/api/endpoints',
    auth: 'user',
    summary: 'register a paid endpoint in front of an upstream URL',
    body: E.createEndpointBody,
    response: E.endpointWithSecret,
    errors: [...TENANT, 'NETWORK_UNSUPPORTED', 'UNKNOWN_TOKEN', 'QUOTA_EXCEEDED'],
  },
  updateEndpoint: {
    method: 'POST',
    path: '/api/endpoints/:id',
    auth: 'user',
    summary: 'list it in the bazaar or not, describe it, set or remove its settlement webhook',
    params: E.endpointParams,
    body: E.updateEndpointBody,
    response: E.endpointWithSecret,
    errors: [...TENANT, 'QUOTA_EXCEEDED'],
  },
  listEndpoints: {
    method: 'GET',
    path: '/api/endpoints',
    auth: 'user',
    summary: "the user's endpoints",
    response: E.endpointList,
    errors: ['FORBIDDEN'],
  },
  showEndpoint: {
    method: 'GET',
    path: '/api/endpoints/:id',
    auth: 'user',
    summary: 'one endpoint',
    params: E.endpointParams,
    response: E.endpoint,
    errors: TENANT,
  },
  deleteEndpoint: {
    method: 'DELETE',
    path: '/api/endpoints/:id',
    auth: 'user',
    summary: 'stop serving an endpoint',
    params: E.endpointParams,
    response: E.deletedEndpoint,
    errors: TENANT,
  },
  refundPayment: {
    method: 'POST',
    path: '/api/refunds',
    auth: 'user',
    summary:
      'return a captured auth-capture payment of one of your endpoints to its buyer ' +
      "(all or part, before its refund deadline), funded by the endpoint's payTo wallet",
    body: refundBody,
    response: refundAnswer,
    errors: [
      ...TENANT,
      'HOLD_NOT_FOUND',
      'HOLD_AMOUNT_INVALID',
      'REFUND_DEADLINE_PASSED',
      'REFUND_REFUSED',
      'CHAIN_UNAVAILABLE',
    ],
  },
  manifest: {
    method: 'GET',
    path: '/api/manifest',
    auth: 'open',
    summary: 'what the platform offers: networks, tokens, payment methods, limits, agent routes',
    response: manifest,
    errors: [],
  },
} as const satisfies Record<string, PlatformRoute>

export type PlatformRoutes = typeof platformRoutes
export type PlatformRouteName = keyof PlatformRoutes

/** The paid URL of an endpoint, served by the platform (any method; payment in the x402 or MPP headers). */
export const PAID_ENDPOINT_PATH = '/paid/:id'

/** Routes an agent key may call, for the manifest. */
export function agentRoutes(): { method: string; path: string; summary: string }[] {
  return Object.values(platformRoutes as Record<string, PlatformRoute>)
    .filter((r) => r.auth === 'agent' || r.auth === 'owner' || r.auth === 'open')
    .map(({ method, path, summary }) => ({ method, path, summary }))
}
