/**
 * x402 wire types as the ecosystem speaks them (v1 and v2), kept here so parx code never needs the
 * `@x402/*` packages at run time. Field names are the protocol's; see ../../../docs/facilitator.md.
 */

/** v2 payment requirements: CAIP-2 network, `amount` in base units. */
export type PaymentRequirements = {
  scheme: string
  network: string
  asset: string
  amount: string
  payTo: string
  maxTimeoutSeconds: number
  extra: Record<string, unknown>
}

/** v1 payment requirements: legacy network name, `maxAmountRequired`, plus resource fields. */
export type PaymentRequirementsV1 = {
  scheme: string
  network: string
  maxAmountRequired: string
  resource: string
  description: string
  mimeType: string
  payTo: string
  maxTimeoutSeconds: number
  asset: string
  extra: Record<string, unknown>
  outputSchema?: Record<string, unknown>
}

export type ResourceInfo = { url: string; description?: string; mimeType?: string }

export type PaymentRequired = {
  x402Version: 2
  error?: string
  resource: ResourceInfo
  accepts: PaymentRequirements[]
  extensions?: Record<string, unknown>
}

export type PaymentRequiredV1 = { x402Version: 1; error?: string; accepts: PaymentRequirementsV1[] }

export type PaymentPayload = {
  x402Version: 2
  accepted: PaymentRequirements
  payload: Record<string, unknown>
  resource?: ResourceInfo
  extensions?: Record<string, unknown>
}

export type PaymentPayloadV1 = { x402Version: 1; scheme: string; network: string; payload: Record<string, unknown> }

export type AnyPaymentPayload = PaymentPayload | PaymentPayloadV1

export type VerifyResponse = {
  isValid: boolean
  /** null when valid (docs/facilitator.md "x402 facilitator"). */
  invalidReason?: string | null
  invalidMessage?: string
  payer?: string
  /**
   * batch-settlement: the channel's on-chain snapshot (channelId, balance, totalClaimed, withdrawRequestedAt,
   * refundNonce).
   */
  extra?: Record<string, unknown>
}

export type SettleResponse = {
  success: boolean
  errorReason?: string
  errorMessage?: string
  payer?: string
  /** Transaction hash (EVM) or signature (Solana); empty when nothing was sent. */
  transaction: string
  /** CAIP-2 network. */
  network: string
  /**
   * upto: the amount settled, in base units (at most the signed maximum); batch-settlement: deposited, swept or
   * refunded.
   */
  amount?: string
  /** batch-settlement: `channelState`, the channel's on-chain snapshot after the settlement. */
  extra?: Record<string, unknown>
}

export type SupportedKind = { x402Version: number; scheme: string; network: string; extra?: Record<string, unknown> }

export type SupportedResponse = {
  kinds: SupportedKind[]
  extensions: string[]
  signers: Record<string, string[]>
}

/**
 * `{signature, authorization}`: the EVM payload of eip3009 and erc2612 (docs/facilitator.md "x402 facilitator"); all
 * values strings.
 */
export type EvmAuthorizationPayload = {
  signature: string
  authorization: {
    from: string
    to: string
    value: string
    validAfter: string
    validBefore: string
    nonce: string
    /** erc2612 only, optional: the spender the permit was signed for (the facilitator's signer). */
    spender?: string
  }
}

/** The asset transfer methods this facilitator settles, by `extra.assetTransferMethod`. */
export const methods = {
  erc2612: 'erc2612',
  eip3009: 'eip3009',
  permit2: 'permit2',
  delegatedSpl: 'delegated-spl',
  /** The reference Solana `exact` form: a partially signed transaction the facilitator co-signs. */
  svmTransaction: 'transaction',
} as const

export type Method = (typeof methods)[keyof typeof methods]

export const EXACT = 'exact'
/** The metered scheme (EVM): the payer signs a maximum, the seller settles what was used. */
export const UPTO = 'upto'
