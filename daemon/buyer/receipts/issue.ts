import type { Logger } from 'pino'
import { type Address, getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { RECEIPT_DOMAIN, type ReceiptMessage, receiptTypedData } from '../../../src/sdk/platform/receipt-typed-data.js'
import type { SignedReceipt } from '../../../src/sdk/platform/receipts.js'
import { sellerReceiptOf } from '../../../src/sdk/x402/offer-receipt.js'
import type { ReceiptStore } from './store.js'

/** What a settled pay knows about itself when its receipt is issued. */
export type ReceiptInput = {
  /** The pay spend's id: the payment id of `parx payments`. */
  paymentId: string
  agent: { id: string; address: string }
  host: string
  payTo: string
  /** CAIP-2 id of the network paid on. */
  network: string
  token: { address: string; symbol: string; decimals: number }
  /** Base units of `token`. */
  amount: bigint
  protocol: string
  /** The settlement transaction, or the channel voucher's identifier (voucherTransaction). */
  transaction: string
  /** The seller's paid answer: its x402 offer-receipt, when it carries one, is kept beside ours. */
  seller?: Pick<Response, 'headers'>
}

/** Signs and keeps receipts of settled pays (PayDeps.receipts). The key stays in this closure. */
export type ReceiptIssuer = {
  /** The receipt key's address, as the manifest publishes it. */
  signer: Address
  /**
   * Signs the receipt and stores it with the payment; resolves once it is stored, so the agent
   * never holds one the platform lacks. Undefined (logged) when it could not be signed or stored: the money
   * has moved by then, and a pay answered as failed would invite the agent to pay twice.
   */
  issue(input: ReceiptInput): Promise<SignedReceipt | undefined>
}

/**
 * The receipt issuer of a deployment: an EIP-712 signature (src/sdk/platform/receipt-typed-data.ts)
 * made in process with the receipt key every replica shares (config `keys.receipt` /
 * PARX_RECEIPT_KEY; the local keys file), so a receipt costs the pay one local signature and one
 * row, and any replica's receipt verifies against the one address in the manifest.
 *
 * @example
 * const receipts = receiptIssuer({ key, store: receiptStore(store) })
 * const signed = await receipts.issue({ paymentId, agent, host, payTo, network, token, amount, protocol, transaction })
 */
export function receiptIssuer(p: {
  key: Hex
  store: ReceiptStore
  log?: Pick<Logger, 'error'>
  now?: () => number
}): ReceiptIssuer {
  const account = privateKeyToAccount(p.key)
  const now = p.now ?? Date.now
  return {
    signer: account.address,
    async issue(x) {
      // Called once the money moved: nothing here may turn the pay into an error (an unsignable field, a store down).
      try {
        const at = now()
        const message: ReceiptMessage = {
          paymentId: x.paymentId,
          agentId: x.agent.id,
          agentWallet: getAddress(x.agent.address),
          host: x.host,
          payTo: getAddress(x.payTo),
          network: x.network,
          token: getAddress(x.token.address),
          symbol: x.token.symbol,
          decimals: x.token.decimals,
          amount: x.amount.toString(),
          protocol: x.protocol,
          transaction: x.transaction,
          paidAt: Math.floor(at / 1000),
        }
        const signature = await account.signTypedData(receiptTypedData(message))
        const signed: SignedReceipt = {
          domain: { ...RECEIPT_DOMAIN },
          primaryType: 'Receipt',
          message,
          signature,
          signer: account.address,
          sellerReceipt: (x.seller && sellerReceiptOf(x.seller)) ?? null,
        }
        return await p.store.put(x.agent.id, signed, at)
      } catch (err) {
        p.log?.error(
          { err, paymentId: x.paymentId },
          'the receipt of a settled pay could not be signed or stored; the pay is answered without one',
        )
        return undefined
      }
    },
  }
}
