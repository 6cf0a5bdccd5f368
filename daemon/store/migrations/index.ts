import { m001_partner_keys } from './001_partner_keys.js'
import { m002_deployments } from './002_deployments.js'
import { m003_relayer_nonces } from './003_relayer_nonces.js'
import { m004_tx_outbox } from './004_tx_outbox.js'
import { m005_rate_limit_buckets } from './005_rate_limit_buckets.js'
import { m100_swap_claims } from './100_swap_claims.js'
import { m200_x402_settlements } from './200_x402_settlements.js'
import { m210_x402_payment_ids } from './210_x402_payment_ids.js'
import { m220_x402_seller_channels } from './220_x402_seller_channels.js'
import { m230_x402_seller_answers } from './230_x402_seller_answers.js'
import { m301_sol_swaps } from './301_sol_swaps.js'
import { m400_xchain } from './400_xchain.js'
import { m401_xchain_raw_txs } from './401_xchain_raw_txs.js'
import { m500_platform } from './500_platform.js'
import { m501_platform_endpoints } from './501_platform_endpoints.js'
import { m510_endpoint_discovery_webhooks } from './510_endpoint_discovery_webhooks.js'
import { m520_platform_spend_holds } from './520_platform_spend_holds.js'
import { m530_platform_spend_host } from './530_platform_spend_host.js'
import { m545_platform_pay_channels } from './545_platform_pay_channels.js'
import { m546_platform_pay_channel_withdrawals } from './546_platform_pay_channel_withdrawals.js'
import { m550_endpoint_batch_settlement } from './550_endpoint_batch_settlement.js'
import { m560_endpoint_auth_capture } from './560_endpoint_auth_capture.js'
import { m601_dashboard } from './601_dashboard.js'
import { m610_dashboard_login_buckets } from './610_dashboard_login_buckets.js'
import { m620_agent_freeze } from './620_agent_freeze.js'
import { m630_budget_windows } from './630_budget_windows.js'
import { m640_payee_rules } from './640_payee_rules.js'
import { m650_payment_receipts } from './650_payment_receipts.js'
import { m660_agent_holds } from './660_agent_holds.js'
import { m670_approvals } from './670_approvals.js'
import { m680_alerts } from './680_alerts.js'
import type { StoreMigration } from './migration.js'

/**
 * Every migration of the store, by name. Names are numbered by area so areas never collide:
 * 001-099 foundation, 1xx swaps, 2xx facilitator, 3xx Solana, 4xx cross-chain, 5xx platform, 6xx dashboard.
 * Each is applied once and recorded; they run in name order, and one added later with a lower
 * number than one already applied still runs (areas land in any order). Never rename one.
 * (300_solana held the embedded Solana cluster's tables: they belong to that chain now, see
 * daemon/solana-rpc/chain-db.ts.)
 */
export const migrations: Record<string, StoreMigration> = {
  '001_partner_keys': m001_partner_keys,
  '002_deployments': m002_deployments,
  '003_relayer_nonces': m003_relayer_nonces,
  '004_tx_outbox': m004_tx_outbox,
  '005_rate_limit_buckets': m005_rate_limit_buckets,
  '100_swap_claims': m100_swap_claims,
  '200_x402_settlements': m200_x402_settlements,
  '210_x402_payment_ids': m210_x402_payment_ids,
  '220_x402_seller_channels': m220_x402_seller_channels,
  '230_x402_seller_answers': m230_x402_seller_answers,
  '301_sol_swaps': m301_sol_swaps,
  '400_xchain': m400_xchain,
  '401_xchain_raw_txs': m401_xchain_raw_txs,
  '500_platform': m500_platform,
  '501_platform_endpoints': m501_platform_endpoints,
  '510_endpoint_discovery_webhooks': m510_endpoint_discovery_webhooks,
  '520_platform_spend_holds': m520_platform_spend_holds,
  '530_platform_spend_host': m530_platform_spend_host,
  '545_platform_pay_channels': m545_platform_pay_channels,
  '546_platform_pay_channel_withdrawals': m546_platform_pay_channel_withdrawals,
  '550_endpoint_batch_settlement': m550_endpoint_batch_settlement,
  '560_endpoint_auth_capture': m560_endpoint_auth_capture,
  '601_dashboard': m601_dashboard,
  '610_dashboard_login_buckets': m610_dashboard_login_buckets,
  '620_agent_freeze': m620_agent_freeze,
  '630_budget_windows': m630_budget_windows,
  '640_payee_rules': m640_payee_rules,
  '650_payment_receipts': m650_payment_receipts,
  '660_agent_holds': m660_agent_holds,
  '670_approvals': m670_approvals,
  '680_alerts': m680_alerts,
}
