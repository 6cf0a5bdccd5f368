import type { Address, Hex } from 'viem'

/**
 * The EIP-712 domain of a parx payment receipt. No chainId and no verifyingContract: a receipt is
 * never submitted to a chain, and one deployment signs receipts of payments on several networks
 * (the network is a field of the message). Binding the domain to one chain would only make a
 * verifier guess which one. `version` changes when the message type does.
 */
export const RECEIPT_DOMAIN = { name: 'parx receipt', version: '1' } as const

/**
 * The signed message, field by field (docs/platform-api.md "Receipts"). `transaction` is the
 * settlement transaction hash; for a voucher paid through a batch-settlement channel (no
 * transaction of its own) it is `batch-settlement:<channelId>:<cumulative base units>`: the
 * voucher the agent signed (the channel and the cumulative amount it signed for), which the seller
 * redeems later in one claim; `amount` is what that voucher charged.
 */
export const RECEIPT_TYPES = {
  Receipt: [
    { name: 'paymentId', type: 'string' },
    { name: 'agentId', type: 'string' },
    { name: 'agentWallet', type: 'address' },
    { name: 'host', type: 'string' },
    { name: 'payTo', type: 'address' },
    { name: 'network', type: 'string' },
    { name: 'token', type: 'address' },
    { name: 'symbol', type: 'string' },
    { name: 'decimals', type: 'uint8' },
    { name: 'amount', type: 'uint256' },
    { name: 'protocol', type: 'string' },
    { name: 'transaction', type: 'string' },
    { name: 'paidAt', type: 'uint64' },
  ],
} as const

/**
 * The message as JSON carries it: `amount` in base units as a decimal string (uint256 does not fit
 * a JSON number), `paidAt` in unix seconds, `network` as its CAIP-2 id.
 */
export type ReceiptMessage = {
  paymentId: string
  agentId: string
  agentWallet: Address
  host: string
  payTo: Address
  network: string
  token: Address
  symbol: string
  decimals: number
  amount: string
  protocol: string
  transaction: string
  paidAt: number
}

/** The typed data viem's signTypedData / verifyTypedData take for a receipt message. */
export function receiptTypedData(m: ReceiptMessage) {
  return {
    domain: RECEIPT_DOMAIN,
    types: RECEIPT_TYPES,
    primaryType: 'Receipt' as const,
    message: { ...m, amount: BigInt(m.amount), paidAt: BigInt(m.paidAt) },
  }
}

/** The voucher identifier a channel pay's receipt names as its `transaction`. */
export const voucherTransaction = (channelId: Hex | string, cumulative: bigint) =>
  `batch-settlement:${channelId.toLowerCase()}:${cumulative}`
