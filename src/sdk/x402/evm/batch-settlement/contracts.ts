import { type Address, type Hex, hashTypedData } from 'viem'

/** The scheme's name on the wire. */
export const BATCH_SETTLEMENT = 'batch-settlement'

/**
 * The x402 `batch-settlement` scheme's contracts, at the addresses the official packages hard-code
 * (deployed by CREATE2 on public chains, placed with anvil_setCode on the embedded ones). The
 * settlement contract is also every voucher's EIP-712 verifying contract, which is why a compatible
 * contract must live exactly there.
 */
export const BATCH_SETTLEMENT_ADDRESS: Address = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003'
export const ERC3009_DEPOSIT_COLLECTOR_ADDRESS: Address = '0x4020806089470a89826cB9fB1f4059150b550004'
export const PERMIT2_DEPOSIT_COLLECTOR_ADDRESS: Address = '0x4020425FAf3B746C082C2f942b4E5159887B0005'

/** The names `parx chains` and `parx deploy` report them under, beside the tokens and routers. */
export const batchSettlementContracts = {
  batchSettlement: BATCH_SETTLEMENT_ADDRESS,
  erc3009DepositCollector: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  permit2DepositCollector: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} as const

/** Bounds of `ChannelConfig.withdrawDelay` (seconds) the contract enforces at deposit. */
export const MIN_WITHDRAW_DELAY = 15 * 60
export const MAX_WITHDRAW_DELAY = 30 * 24 * 3600

/** The channel: its EIP-712 hash under the settlement domain is the channel id. */
export type ChannelConfig = {
  payer: Address
  /** The EOA that signs vouchers, or the zero address for the payer itself (ERC-1271 wallets). */
  payerAuthorizer: Address
  receiver: Address
  receiverAuthorizer: Address
  token: Address
  withdrawDelay: number
  salt: Hex
}

export const channelConfigTypes = {
  ChannelConfig: [
    { name: 'payer', type: 'address' },
    { name: 'payerAuthorizer', type: 'address' },
    { name: 'receiver', type: 'address' },
    { name: 'receiverAuthorizer', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'withdrawDelay', type: 'uint40' },
    { name: 'salt', type: 'bytes32' },
  ],
} as const

export const voucherTypes = {
  Voucher: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
  ],
} as const

export const refundTypes = {
  Refund: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'nonce', type: 'uint256' },
    { name: 'amount', type: 'uint128' },
  ],
} as const

export const claimBatchTypes = {
  ClaimBatch: [{ name: 'claims', type: 'ClaimEntry[]' }],
  ClaimEntry: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
    { name: 'totalClaimed', type: 'uint128' },
  ],
} as const

/** The deposit witness a Permit2 deposit signs (spender: the Permit2 deposit collector). */
export const depositPermit2WitnessTypes = {
  PermitWitnessTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'witness', type: 'DepositWitness' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
  DepositWitness: [{ name: 'channelId', type: 'bytes32' }],
} as const

export function batchSettlementDomain(chainId: number) {
  return { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: BATCH_SETTLEMENT_ADDRESS } as const
}

/**
 * The channel id: the config's EIP-712 hash, bound to the chain and the settlement contract.
 *
 * @example
 * channelIdOf(config, 84532) // '0x3f…'
 */
export function channelIdOf(config: ChannelConfig, chainId: number): Hex {
  return hashTypedData({
    domain: batchSettlementDomain(chainId),
    types: channelConfigTypes,
    primaryType: 'ChannelConfig',
    message: config,
  })
}

export function voucherTypedData(chainId: number, channelId: Hex, maxClaimableAmount: bigint) {
  return {
    domain: batchSettlementDomain(chainId),
    types: voucherTypes,
    primaryType: 'Voucher' as const,
    message: { channelId, maxClaimableAmount },
  }
}

export function refundTypedData(chainId: number, channelId: Hex, nonce: bigint, amount: bigint) {
  return {
    domain: batchSettlementDomain(chainId),
    types: refundTypes,
    primaryType: 'Refund' as const,
    message: { channelId, nonce, amount },
  }
}

export type ClaimEntry = { channelId: Hex; maxClaimableAmount: bigint; totalClaimed: bigint }

export function claimBatchTypedData(chainId: number, claims: ClaimEntry[]) {
  return {
    domain: batchSettlementDomain(chainId),
    types: claimBatchTypes,
    primaryType: 'ClaimBatch' as const,
    message: { claims },
  }
}
