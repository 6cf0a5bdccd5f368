/**
 * Alerts (680): rules per user (optionally scoped to one agent), the alerts fired, and the
 * refusals counted by `refusals` rules (written only for users with such a rule).
 */
export interface PlatformAlertRulesTable {
  id: string
  user_id: string
  /** null: every agent of the user */
  agent_id: string | null
  kind: 'budget' | 'payment_above' | 'new_payee' | 'refusals' | 'spend_rate'
  /** JSON of the kind's settings (src/sdk/platform/alerts.ts alertRuleParams) */
  params: string
  created_at: number
}

export interface PlatformAlertsTable {
  id: string
  /** unique: one crossing (rule, subject, the spend or refusal that crossed) fires once */
  dedupe_key: string
  rule_id: string
  user_id: string
  agent_id: string | null
  kind: PlatformAlertRulesTable['kind']
  /** JSON of the figures that made it fire (amounts in USD decimal strings) */
  figures: string
  message: string
  created_at: number
}

export interface PlatformAlertRefusalsTable {
  id: string
  agent_id: string
  /** the error code the agent was refused with */
  code: string
  created_at: number
}

export interface AlertTables {
  platform_alert_rules: PlatformAlertRulesTable
  platform_alerts: PlatformAlertsTable
  platform_alert_refusals: PlatformAlertRefusalsTable
}
