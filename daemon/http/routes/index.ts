import type { AnyRoute } from '../route.js'
import { dashboardRoutes } from './dashboard/index.js'
import baseBalance from './discovery/base-balance.js'
import baseInfo from './discovery/base-info.js'
import capabilities from './discovery/capabilities.js'
import config from './discovery/config.js'
import { docsPage, docsScript } from './discovery/docs.js'
import health from './discovery/health.js'
import openapi from './discovery/openapi.js'
import readiness from './discovery/readiness.js'
import facilitatorDiscovery from './facilitator/discovery-resources.js'
import facilitatorHealth from './facilitator/health.js'
import facilitatorSettle from './facilitator/settle.js'
import {
  statusByPaymentId as facilitatorStatus,
  statusByTransaction as facilitatorTxStatus,
} from './facilitator/status.js'
import facilitatorSupported from './facilitator/supported.js'
import facilitatorVerify from './facilitator/verify.js'
import faucet from './local/faucet.js'
import metrics from './metrics/metrics.js'
import backup from './operator/backup.js'
import keysCreate from './operator/keys-create.js'
import keysDeactivate from './operator/keys-deactivate.js'
import keysDelete from './operator/keys-delete.js'
import keysList from './operator/keys-list.js'
import platformReseal from './operator/platform-reseal.js'
import agentsCreate from './platform/agents-create.js'
import { freezeAgent, freezeAllAgents, unfreezeAgent, unfreezeAllAgents } from './platform/agents-freeze.js'
import agentsList from './platform/agents-list.js'
import agentsMe from './platform/agents-me.js'
import { getAgentPolicy, setAgentPolicy } from './platform/agents-policy.js'
import agentsShow from './platform/agents-show.js'
import { createAlertRule, deleteAlertRule, listAlertHistory, listAlertRules } from './platform/alerts.js'
import { approveApproval, denyApproval, listAgentApprovals, listApprovals, showApproval } from './platform/approvals.js'
import agentBalance from './platform/balance.js'
import channelsList from './platform/channels-list.js'
import channelsRefund from './platform/channels-refund.js'
import channelsWithdraw from './platform/channels-withdraw.js'
import endpointsCreate from './platform/endpoints-create.js'
import endpointsDelete from './platform/endpoints-delete.js'
import endpointsList from './platform/endpoints-list.js'
import endpointsShow from './platform/endpoints-show.js'
import endpointsUpdate from './platform/endpoints-update.js'
import agentKeysCreate from './platform/keys-create.js'
import agentKeysList from './platform/keys-list.js'
import agentKeysRevoke from './platform/keys-revoke.js'
import limitsGet from './platform/limits-get.js'
import limitsSet from './platform/limits-set.js'
import manifest from './platform/manifest.js'
import { paidGet, paidPost } from './platform/paid.js'
import agentPay from './platform/pay.js'
import agentPayments from './platform/payments-list.js'
import receiptsList from './platform/receipts-list.js'
import receiptsShow from './platform/receipts-show.js'
import refundsCreate from './platform/refunds-create.js'
import agentReport from './platform/report.js'
import agentSend from './platform/send.js'
import agentSwap from './platform/swap.js'
import { getUserLimits, setUserLimits } from './platform/user-limits.js'
import usersCreate from './platform/users-create.js'
import usersMe from './platform/users-me.js'
import { getUserPolicy, setDefaultPolicy, setUserPolicy } from './platform/users-policy.js'
import solBalance from './sol/balance.js'
import solConfirm from './sol/confirm.js'
import solInfo from './sol/info.js'
import solRecent from './sol/recent.js'
import solRedeem from './sol/redeem.js'
import solRedeemQuote from './sol/redeem-quote.js'
import solSwap from './sol/swap.js'
import baseConfirm from './swap/base-confirm.js'
import baseNonces from './swap/base-nonces.js'
import baseRedeem from './swap/base-redeem.js'
import baseRedeemQuote from './swap/base-redeem-quote.js'
import baseSwap from './swap/base-swap.js'
import xchainEvmBuild from './xchain/evm-origin-build.js'
import xchainEvmSubmit from './xchain/evm-origin-submit.js'
import xchainHeartbeat from './xchain/heartbeat.js'
import xchainPause from './xchain/pause.js'
import xchainRefund from './xchain/refund.js'
import xchainRelease from './xchain/release.js'
import xchainReserve from './xchain/reserve.js'
import xchainResume from './xchain/resume.js'
import xchainSettle from './xchain/settle.js'
import xchainSolBuild from './xchain/sol-origin-build.js'
import xchainStatus from './xchain/status.js'

/** What a `--role worker` process serves: it answers for its health, not for the API. */
export const workerRoutes: AnyRoute[] = [health, readiness, metrics]

/** Every route of the daemon, by surface. A new route file is registered here and nowhere else. */
export const routes: AnyRoute[] = [
  // discovery (docs/swap-api.md "Discovery and balances")
  health,
  capabilities,
  config,
  readiness,
  baseInfo,
  baseBalance,
  openapi,
  docsPage,
  docsScript,
  // same-chain swaps (docs/swap-api.md "Swaps (SDK)")
  baseConfirm,
  baseSwap,
  baseRedeem,
  baseRedeemQuote,
  baseNonces,
  // Solana swaps (docs/swap-api.md "Solana swaps")
  solInfo,
  solBalance,
  solSwap,
  solRedeem,
  solRedeemQuote,
  solConfirm,
  solRecent,
  // cross-chain (docs/cross-chain.md "Cross-chain orders"): build and status (K); the solver's operator routes and the
  // internal inventory helpers
  xchainSolBuild,
  xchainEvmBuild,
  xchainEvmSubmit,
  xchainStatus,
  xchainSettle,
  xchainRefund,
  xchainHeartbeat,
  xchainPause,
  xchainResume,
  xchainReserve,
  xchainRelease,
  // x402 facilitator (docs/facilitator.md "x402 facilitator")
  // (the transaction route before the id route: `tx` would not be an id, but say so by order too)
  facilitatorSupported,
  facilitatorVerify,
  facilitatorSettle,
  facilitatorHealth,
  facilitatorDiscovery,
  facilitatorTxStatus,
  facilitatorStatus,
  // operator
  keysCreate,
  keysList,
  keysDeactivate,
  keysDelete,
  platformReseal,
  backup,
  // Prometheus' scrape, behind the operator token (docs/operations.md "Metrics")
  metrics,
  // local profile
  faucet,
  // the agent payments platform (docs/platform-api.md); /api/agents/me before /api/agents/:id
  usersCreate,
  usersMe,
  getUserLimits,
  setUserLimits,
  agentsMe,
  agentsCreate,
  agentsList,
  agentsShow,
  limitsGet,
  limitsSet,
  freezeAgent,
  unfreezeAgent,
  freezeAllAgents,
  unfreezeAllAgents,
  getAgentPolicy,
  setAgentPolicy,
  getUserPolicy,
  setUserPolicy,
  setDefaultPolicy,
  agentKeysCreate,
  agentKeysList,
  agentKeysRevoke,
  agentBalance,
  agentSend,
  agentSwap,
  agentPay,
  agentPayments,
  agentReport,
  receiptsList,
  receiptsShow,
  channelsList,
  channelsRefund,
  channelsWithdraw,
  listApprovals,
  showApproval,
  approveApproval,
  denyApproval,
  listAgentApprovals,
  // /api/alerts/history is a GET; /api/alerts/:ruleId only a DELETE
  listAlertRules,
  createAlertRule,
  deleteAlertRule,
  listAlertHistory,
  endpointsCreate,
  endpointsList,
  endpointsShow,
  endpointsUpdate,
  endpointsDelete,
  refundsCreate,
  paidGet,
  paidPost,
  manifest,
  // the dashboard at {dashboard_url} (docs/dashboard.md "Dashboard")
  ...dashboardRoutes,
]
