import type { AgentHoldTables } from './tables/agent-holds.js'
import type { AlertTables } from './tables/alerts.js'
import type { ApprovalTables } from './tables/approvals.js'
import type { ChannelTables } from './tables/channels.js'
import type { DashboardTables } from './tables/dashboard.js'
import type { FacilitatorTables } from './tables/facilitator.js'
import type { FoundationTables } from './tables/foundation.js'
import type { PlatformTables } from './tables/platform.js'
import type { PolicyTables } from './tables/policy.js'
import type { ReceiptTables } from './tables/receipts.js'
import type { SellerTables } from './tables/seller.js'
import type { SolanaTables } from './tables/solana.js'
import type { SwapTables } from './tables/swap.js'
import type { XchainTables } from './tables/xchain.js'

/**
 * Every table of the store, typed. An area declares its tables in `tables/<area>.ts` as an
 * interface `<Area>Tables` and adds it here; its migrations go in `migrations/` (see index.ts there).
 */
export interface Database
  extends FoundationTables,
    FacilitatorTables,
    SolanaTables,
    XchainTables,
    PlatformTables,
    SwapTables,
    DashboardTables,
    ChannelTables,
    SellerTables,
    ReceiptTables,
    PolicyTables,
    AgentHoldTables,
    ApprovalTables,
    AlertTables {}
