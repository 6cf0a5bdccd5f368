import type { RpcMethod } from './define.js'
import { getAccountInfo } from './get-account-info.js'
import { getBalance } from './get-balance.js'
import { getBlock } from './get-block.js'
import { getBlockHeight } from './get-block-height.js'
import { getBlockTime } from './get-block-time.js'
import { getBlocks, getBlocksWithLimit } from './get-blocks.js'
import { getEpochInfo } from './get-epoch-info.js'
import { getFeeForMessage } from './get-fee-for-message.js'
import { getGenesisHash } from './get-genesis-hash.js'
import { getHealth } from './get-health.js'
import { getLatestBlockhash } from './get-latest-blockhash.js'
import { getMinimumBalanceForRentExemption } from './get-minimum-balance-for-rent-exemption.js'
import { getMultipleAccounts } from './get-multiple-accounts.js'
import { getRecentBlockhash } from './get-recent-blockhash.js'
import { getRecentPrioritizationFees } from './get-recent-prioritization-fees.js'
import { getSignatureStatuses } from './get-signature-statuses.js'
import { getSignaturesForAddress } from './get-signatures-for-address.js'
import { getSlot } from './get-slot.js'
import { getTokenAccountBalance } from './get-token-account-balance.js'
import { getTokenAccountsByOwner } from './get-token-accounts-by-owner.js'
import { getTokenSupply } from './get-token-supply.js'
import { getTransaction } from './get-transaction.js'
import { getVersion } from './get-version.js'
import { isBlockhashValid } from './is-blockhash-valid.js'
import { getEpochSchedule, getFirstAvailableBlock, getTransactionCount, minimumLedgerSlot } from './ledger-facts.js'
import { requestAirdrop } from './request-airdrop.js'
import { sendTransaction } from './send-transaction.js'
import { simulateTransaction } from './simulate-transaction.js'

export type { RpcContext, RpcMethod } from './define.js'

/** Every HTTP JSON-RPC method the embedded cluster answers, by name. */
export const rpcMethods: ReadonlyMap<string, RpcMethod> = new Map(
  [
    getAccountInfo,
    getBalance,
    getBlockHeight,
    getBlockTime,
    getEpochInfo,
    getFeeForMessage,
    getGenesisHash,
    getHealth,
    getLatestBlockhash,
    getMinimumBalanceForRentExemption,
    getMultipleAccounts,
    getRecentBlockhash,
    getSignatureStatuses,
    getSignaturesForAddress,
    getSlot,
    getTokenAccountBalance,
    getTokenAccountsByOwner,
    getTokenSupply,
    getTransaction,
    getVersion,
    isBlockhashValid,
    requestAirdrop,
    sendTransaction,
    simulateTransaction,
    getBlock,
    getBlocks,
    getBlocksWithLimit,
    getEpochSchedule,
    getFirstAvailableBlock,
    getRecentPrioritizationFees,
    getTransactionCount,
    minimumLedgerSlot,
  ].map((m) => [m.method, m]),
)
