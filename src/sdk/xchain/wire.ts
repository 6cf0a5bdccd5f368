/**
 * The cross-chain HTTP contract (docs/cross-chain.md "Cross-chain orders"), as data: request schemas, response types
 * and
 * paths of every cross-chain route, both rails. The daemon's routes validate with these schemas and
 * the SDK helpers build with them, so no field is described twice.
 *
 * The evm-origin rail's build response (`EvmOriginBuilt`) offers two ways to lock on Base: the
 * gasless one (sign two typed data, POST them to `xchainPaths.evmSubmit`, the solver relays
 * `openFor`) and the plain one (send `calls.approve` then `calls.open` from the user's wallet).
 */
import { PublicKey } from '@solana/web3.js'
import { type Address, getAddress, type Hex, isAddress } from 'viem'
import { z } from 'zod'
import { isBase58Of } from '../solana/encoded-size.js'
import { RAILS, type XchainRail } from './paths.js'

export { RAILS, type XchainRail } from './paths.js'

/** What a status poll answers (docs/cross-chain.md "Cross-chain orders"). */
export const PUBLIC_STATUSES = ['pending', 'claimed', 'refunded', 'attention', 'unknown'] as const
export type XchainStatus = (typeof PUBLIC_STATUSES)[number]

export { xchainPaths } from './paths.js'

// ---------------------------------------------------------------------------------------------
// Field schemas
// ---------------------------------------------------------------------------------------------

/**
 * A Base address that is already in its EIP-55 checksum form (docs/cross-chain.md "Cross-chain orders": "not in EIP-55
 * checksum form" is refused).
 */
export const checksummedAddress = z
  .string({ required_error: 'required' })
  .refine(
    (v) => isAddress(v, { strict: false }) && getAddress(v) === v,
    (v) => ({
      message: isAddress(v, { strict: false })
        ? `not in EIP-55 checksum form; send ${getAddress(v)}`
        : 'not an EVM address (0x followed by 40 hex characters, in EIP-55 checksum form)',
    }),
  )
  .transform((v) => v as Address)

/** A Solana public key (base58, 32 bytes). */
export const solanaPublicKey = z
  .string({ required_error: 'required' })
  .refine((v) => isBase58Of(v, 32) && new PublicKey(v).toBase58() === v, 'not a Solana public key (base58, 32 bytes)')

/** A human decimal amount, string preferred, number accepted; kept as the exact string. */
export const uiAmount = z
  .union([z.string(), z.number()])
  .transform((v) =>
    typeof v === 'number'
      ? Number.isFinite(v)
        ? String(v).includes('e')
          ? v.toFixed(20).replace(/\.?0+$/, '')
          : String(v)
        : 'NaN'
      : v.trim(),
  )
  .refine((v) => /^\d{1,30}(\.\d{1,30})?$/.test(v), 'must be a positive decimal like "12.5"')
  .refine((v) => /[1-9]/.test(v), 'must be greater than zero')

const symbol = z
  .string({ required_error: 'required' })
  .regex(/^[A-Za-z0-9]{1,16}$/, 'a token symbol like USDC')
  .transform((s) => s.toUpperCase())

/**
 * 32 bytes as 64 hex characters, with or without 0x; normalised to lower-case 0x form. Malformed is
 * a 400 BAD_REQUEST wherever it appears, the status path included (docs/errors.md "Errors": a malformed field).
 */
export const orderIdSchema = z
  .string({ required_error: 'required' })
  .superRefine((v, ctx) => {
    if (!/^(0x)?[0-9a-fA-F]{64}$/.test(v))
      ctx.addIssue({
        code: 'custom',
        message: 'an order id is 32 bytes: 64 hex characters, with or without 0x',
        params: { code: 'BAD_REQUEST' },
      })
  })
  .transform((v) => `0x${v.replace(/^0x/, '').toLowerCase()}` as `0x${string}`)

export const railSchema = z.enum(RAILS, { errorMap: () => ({ message: "one of 'sol-origin', 'evm-origin'" }) })
/** `/api/xchain/:rail/...` (an unknown rail is NOT_FOUND: no such route). */
export const RailParams = z.object({ rail: railSchema })

// ---------------------------------------------------------------------------------------------
// Build routes (K)
// ---------------------------------------------------------------------------------------------

/** POST /api/xchain/sol-origin/open/build */
export const SolOriginBuildBody = z
  .object({
    /** The Solana wallet funding the order; it signs txB64 (the solver pays the fee). */
    user: solanaPublicKey,
    /** Input symbol on Solana. */
    inSym: symbol,
    /** Output symbol on Base. */
    outSym: symbol,
    uiAmount,
    recipientEvm: checksummedAddress,
  })
  .strict()
export type SolOriginBuildRequest = z.infer<typeof SolOriginBuildBody>

/** What both rails' build responses say of the order: its id, par amounts, deadlines and where to poll. */
export type BuiltOrder = {
  orderId: `0x${string}`
  /**
   * Par: equal human amounts; base units at each token's decimals (input on the origin chain, output on the
   * destination).
   */
  inAmount: number
  outAmount: number
  inAmountBase: string
  outAmountBase: string
  inToken: string
  outToken: string
  fillDeadline: number
  expires: number
  /** GET this (with your x-api-key) until a final status. */
  status: string
}

/** The build response of docs/cross-chain.md "Cross-chain orders", plus base-unit amounts and where to poll. */
export type SolOriginBuilt = BuiltOrder & {
  rail: 'sol-origin'
  /** Legacy transaction, base64, already signed by the solver as fee payer; the user signs and submits it. */
  txB64: string
  /** The Base recipient (checksummed). */
  recipient: Address
  blockhash: string
  lastValidBlockHeight: number
  feePayer: string
}

/** POST /api/xchain/evm-origin/open/build (the evm-origin rail defines its response). */
export const EvmOriginBuildBody = z
  .object({
    user: z
      .string({ required_error: 'required' })
      .refine((v) => isAddress(v, { strict: false }), 'not an EVM address')
      .transform((v) => getAddress(v) as Address),
    inSym: symbol,
    outSym: symbol,
    uiAmount,
    recipientSol: solanaPublicKey,
  })
  .strict()
export type EvmOriginBuildRequest = z.infer<typeof EvmOriginBuildBody>

/**
 * EIP-712 typed data as JSON: uint256 values are decimal strings (uint32 ones numbers), so it
 * travels without bigints. Wallets' eth_signTypedData_v4 takes it as is; viem's signTypedData
 * wants bigints for uint256 (`typedDataForViem` in evm-origin-client.ts converts).
 */
export type TypedDataJson<P extends string = string> = {
  domain: { name: string; version: string; chainId: number; verifyingContract: Address }
  types: Record<string, readonly { name: string; type: string }[]>
  primaryType: P
  message: Record<string, string | number>
}

/** A transaction for the user's own wallet (it pays the gas): send `data` to `to`, value 0. */
export type WalletCall = { to: Address; data: Hex }

/** The SourceEscrow order (contracts/xchain/statement.ts EvmOrder) as JSON: uint256 as decimal strings. */
export type EvmOrderJson = {
  user: Address
  inputToken: Address
  inputAmount: string
  /** chainRef (sha256 of the CAIP-2 id) of the Solana cluster. */
  destChain: Hex
  /** The Solana mint as bytes32. */
  outputToken: Hex
  outputAmount: string
  /** The Solana recipient (owner) as bytes32. */
  recipient: Hex
  fillDeadline: number
  expires: number
  nonce: string
}

/**
 * The build response of POST /api/xchain/evm-origin/open/build: the mirror of SolOriginBuilt for a
 * lock on Base. Nothing is on chain yet; the user opens the order one of two ways:
 *
 * - gasless (a wallet with no ETH): sign `gasless.order` (EIP-712, the SourceEscrow domain; its
 *   digest is `orderId`) and `gasless.permit` (EIP-2612 of the input token, spender the escrow,
 *   value inputAmount, deadline fillDeadline), then POST both signatures to `gasless.submit`
 *   (EvmOriginSubmitBody). The solver relays `openFor` and pays the gas.
 * - with ETH: send `calls.approve` then `calls.open` from `order.user`.
 *
 * Either way the order must be opened before `fillDeadline` (Base time); after it the order can
 * no longer open and its held inventory is released. Then poll `status`.
 */
export type EvmOriginBuilt = BuiltOrder & {
  rail: 'evm-origin'
  /** `orderId` is the EIP-712 digest of `order` under the escrow's domain; the only handle for tracking. */
  order: EvmOrderJson
  /** The Solana recipient (base58): delivery goes to its associated token account of the output mint. */
  recipient: string
  chainId: number
  escrow: Address
  gasless: {
    order: TypedDataJson<'Order'>
    permit: TypedDataJson<'Permit'>
    /** POST the signatures here (with your x-api-key). */
    submit: string
  }
  calls: { approve: WalletCall; open: WalletCall }
}

const hexSignature = z
  .string({ required_error: 'required' })
  .regex(/^0x([0-9a-fA-F]{2}){65,}$/, 'a signature: 0x and at least 65 bytes of hex')
  .transform((v) => v as Hex)

/**
 * POST /api/xchain/evm-origin/open/submit: the gasless open. `orderSignature` signs
 * `gasless.order` (an EOA's 65 bytes, or what the user's ERC-1271 wallet accepts);
 * `permitSignature` signs `gasless.permit` (65 bytes). Without a permit, the user's allowance to
 * the escrow must cover inputAmount already.
 */
export const EvmOriginSubmitBody = z
  .object({
    orderId: orderIdSchema,
    orderSignature: hexSignature,
    permitSignature: z
      .string()
      .regex(/^0x[0-9a-fA-F]{130}$/, 'a 65-byte signature: 0x and 130 hex characters')
      .transform((v) => v as Hex)
      .optional(),
  })
  .strict()
export type EvmOriginSubmitRequest = z.infer<typeof EvmOriginSubmitBody>

/**
 * The submit answer. `opened`: the lock is on chain (this submit's openFor landed, or an earlier
 * one or the user's own open did). A second submit of the same order answers the same, without a
 * second relay. `openRef`: the openFor transaction, when the solver relayed it.
 */
export type EvmOriginSubmitted = {
  rail: 'evm-origin'
  orderId: `0x${string}`
  opened: boolean
  openRef: Hex | null
  status: string
}

// ---------------------------------------------------------------------------------------------
// Status (K)
// ---------------------------------------------------------------------------------------------

export const StatusParams = z.object({ orderId: orderIdSchema })
export const StatusQuery = z.object({ rail: railSchema.default('sol-origin') })

/** GET /api/xchain/status/:orderId (docs/cross-chain.md "Cross-chain orders"). */
export type XchainStatusResponse = {
  orderId: `0x${string}`
  rail: XchainRail
  status: XchainStatus
  /** Delivered amount in the output token's base units ("0" before delivery). */
  delivered: string
  deliverRef: string | null
  claimRef: string | null
  refundRef: string | null
  recipient: string | null
  reason: string | null
  /** The solver's step, finer than `status` (built, opened, delivered, attested, claimed, refunded, ...). */
  stage: string | null
  fillDeadline: number | null
  expires: number | null
}

// ---------------------------------------------------------------------------------------------
// Operator routes (operator bearer token)
// ---------------------------------------------------------------------------------------------

/** POST /api/xchain/:rail/settle: run the next steps of one order now (deliver, attest, claim). */
export const SettleBody = z.object({ orderId: orderIdSchema }).strict()
/** POST /api/xchain/:rail/refund: refund one expired, undelivered order now. */
export const RefundBody = z.object({ orderId: orderIdSchema }).strict()
/** POST /api/solver/pause: stop delivering and claiming (each can be kept on); refunds of expired orders go on. */
export const PauseBody = z
  .object({ deliveries: z.boolean().default(true), claims: z.boolean().default(true) })
  .strict()
  .default({})

export type OperatorOrderResult = {
  orderId: `0x${string}`
  rail: XchainRail
  stage: string
  status: XchainStatus
  reason: string | null
}

/** GET or POST /api/solver/heartbeat */
export type HeartbeatResponse = {
  ok: true
  /** Whether this process runs the solver worker now (the leader). */
  leading: boolean
  paused: { deliveries: boolean; claims: boolean }
  /** Unix ms of the worker's last completed pass (any process), null before the first. */
  lastPassAt: number | null
  rails: XchainRail[]
  orders: Record<string, number>
  attestors: { index: number; online: boolean }[]
}

// ---------------------------------------------------------------------------------------------
// Internal inventory helpers (operator bearer token)
// ---------------------------------------------------------------------------------------------

export const ReserveBody = z
  .object({
    network: z.string().min(1).max(64),
    token: symbol,
    /** Base units, decimal string. */
    amount: z.string().regex(/^[1-9]\d{0,77}$/, 'base units as a positive decimal string'),
    /** Who holds it (free text, shown in listings). */
    ref: z.string().min(1).max(128),
    /** Held until released, or until this many seconds pass (default 600). */
    ttlSeconds: z
      .number()
      .int()
      .positive()
      .max(7 * 86400)
      .default(600),
  })
  .strict()
export type ReserveResult = {
  id: string
  network: string
  token: string
  amount: string
  available: string
  expiresAt: number
}

export const ReleaseBody = z.object({ id: z.string().min(1).max(128) }).strict()
export type ReleaseResult = { id: string; released: boolean; state: string }
