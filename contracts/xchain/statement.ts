/**
 * The cross-chain order and the delivery statement, defined once for both rails and both chains.
 *
 * The EVM contracts (SourceEscrow, AttestationVerifierMofN, OutputSettler), the Solana programs
 * (origin_settler, dest_settler), their tests and the attestors all derive order ids and the bytes
 * an attestor signs from this module; contracts/README.md documents the same layouts in prose.
 *
 * Parties on another chain are bytes32: an EVM address left-padded with zeros, a Solana public key
 * as its 32 bytes. A chain is named by `chainRef(caip2)` = sha256 of its CAIP-2 id, so one
 * 32-byte value names an EVM chain and a Solana cluster alike.
 */
import { createHash } from 'node:crypto'
import {
  type Address,
  bytesToHex,
  concat,
  type Hex,
  hashTypedData,
  hexToBytes,
  pad,
  type TypedDataDomain,
  toBytes,
} from 'viem'

export type Rail = 'evm-origin' | 'sol-origin'

/** 32 bytes naming a chain: sha256(utf8(caip2)), e.g. sha256("eip155:84530017"). */
export function chainRef(caip2: string): Hex {
  return bytesToHex(createHash('sha256').update(caip2, 'utf8').digest())
}

/** An EVM address as a bytes32 party (left-padded). */
export const evmParty = (a: Address): Hex => pad(a.toLowerCase() as Hex, { size: 32 })
/** A Solana public key (32 bytes) as a bytes32 party. */
export const solParty = (pubkey: Uint8Array): Hex => {
  if (pubkey.length !== 32) throw new RangeError('a Solana public key is 32 bytes')
  return bytesToHex(pubkey)
}

// ---------------------------------------------------------------------------------------------
// EVM-origin orders: locked in SourceEscrow on Base, delivered on Solana by dest_settler.
// ---------------------------------------------------------------------------------------------

/** The order a user signs (gasless `openFor`) or submits (`open`) to SourceEscrow. */
export type EvmOrder = {
  user: Address
  inputToken: Address
  inputAmount: bigint
  /** chainRef of the destination cluster. */
  destChain: Hex
  /** The destination mint, as bytes32. */
  outputToken: Hex
  /** In the output token's base units (1:1 par, rescaled to its decimals). */
  outputAmount: bigint
  /** The destination owner (Solana public key) as bytes32; delivery goes to its token account. */
  recipient: Hex
  /** Unix seconds; fillDeadline <= expires. */
  fillDeadline: number
  expires: number
  /** A user-chosen salt; one order id is opened at most once. */
  nonce: bigint
}

export const SOURCE_ESCROW_DOMAIN = { name: 'ParxSourceEscrow', version: '1' } as const

export const evmOrderTypes = {
  Order: [
    { name: 'user', type: 'address' },
    { name: 'inputToken', type: 'address' },
    { name: 'inputAmount', type: 'uint256' },
    { name: 'destChain', type: 'bytes32' },
    { name: 'outputToken', type: 'bytes32' },
    { name: 'outputAmount', type: 'uint256' },
    { name: 'recipient', type: 'bytes32' },
    { name: 'fillDeadline', type: 'uint32' },
    { name: 'expires', type: 'uint32' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

export const sourceEscrowDomain = (chainId: number, escrow: Address): TypedDataDomain => ({
  ...SOURCE_ESCROW_DOMAIN,
  chainId,
  verifyingContract: escrow,
})

/**
 * The order id of an EVM-origin order: its EIP-712 digest under the escrow's domain. It binds the
 * chain and the escrow, and it is exactly what the user signs for `openFor`.
 */
export function evmOrderId(order: EvmOrder, chainId: number, escrow: Address): Hex {
  return hashTypedData({
    domain: sourceEscrowDomain(chainId, escrow),
    types: evmOrderTypes,
    primaryType: 'Order',
    message: order,
  })
}

// ---------------------------------------------------------------------------------------------
// Solana-origin orders: locked by origin_settler in a PDA vault, delivered on Base by OutputSettler.
// ---------------------------------------------------------------------------------------------

export type SolOrder = {
  /** The origin_settler program id. */
  program: Uint8Array
  user: Uint8Array
  inputMint: Uint8Array
  /** In the input mint's base units (u64). */
  inputAmount: bigint
  destChain: Hex
  /** The Base token address as bytes32. */
  outputToken: Hex
  /** In the output token's base units (up to 18 decimals, so a u256). */
  outputAmount: bigint
  /** The Base recipient address as bytes32. */
  recipient: Hex
  fillDeadline: bigint
  expires: bigint
  nonce: bigint
}

const ORDER_TAG = 'PARX_XCHAIN_ORDER_V1'

/**
 * The packed bytes a Solana-origin order id hashes (little-endian integers as Solana keeps them,
 * the output amount as 32 big-endian bytes like every amount that crosses chains):
 *   "PARX_XCHAIN_ORDER_V1" (20) | program (32) | user (32) | inputMint (32) | inputAmount u64 LE (8)
 *   | destChain (32) | outputToken (32) | outputAmount u256 BE (32) | recipient (32)
 *   | fillDeadline i64 LE (8) | expires i64 LE (8) | nonce u64 LE (8)          = 276 bytes
 */
export function solOrderBytes(o: SolOrder): Uint8Array {
  return concat([
    toBytes(ORDER_TAG),
    key32(o.program),
    key32(o.user),
    key32(o.inputMint),
    u64le(o.inputAmount),
    hex32(o.destChain),
    hex32(o.outputToken),
    u256be(o.outputAmount),
    hex32(o.recipient),
    i64le(o.fillDeadline),
    i64le(o.expires),
    u64le(o.nonce),
  ])
}

/** sha256 of solOrderBytes: the order id, and the seed of the order account and its vault. */
export function solOrderId(o: SolOrder): Hex {
  return bytesToHex(createHash('sha256').update(solOrderBytes(o)).digest())
}

// ---------------------------------------------------------------------------------------------
// The delivery statement: what each attestor signs after checking the fill on the destination.
// ---------------------------------------------------------------------------------------------

export type Delivery = {
  orderId: Hex
  /** chainRef of the chain the output was delivered on. */
  destChain: Hex
  /** Who received it, as bytes32. */
  recipient: Hex
  /** The delivered token on the destination, as bytes32. */
  outputToken: Hex
  /** Delivered amount in the output token's base units. */
  amount: bigint
  /** The solver allowed to claim the locked input on the origin chain, as bytes32. */
  solver: Hex
}

/** Evm-origin claims: attestors sign this EIP-712 struct (secp256k1) under the verifier's domain. */
export const VERIFIER_DOMAIN = { name: 'ParxAttestationVerifier', version: '1' } as const

export const deliveryTypes = {
  Delivery: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'destChain', type: 'bytes32' },
    { name: 'recipient', type: 'bytes32' },
    { name: 'outputToken', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'solver', type: 'bytes32' },
  ],
} as const

export const verifierDomain = (chainId: number, verifier: Address): TypedDataDomain => ({
  ...VERIFIER_DOMAIN,
  chainId,
  verifyingContract: verifier,
})

/** The digest an EVM attestor signs (what AttestationVerifierMofN recovers against). */
export function evmDeliveryDigest(d: Delivery, chainId: number, verifier: Address): Hex {
  return hashTypedData({
    domain: verifierDomain(chainId, verifier),
    types: deliveryTypes,
    primaryType: 'Delivery',
    message: d,
  })
}

/**
 * The delivery that settles an EVM-origin order, as SourceEscrow.claim builds it from the stored
 * order: the attestors sign exactly this (with `evmDeliveryDigest`) once they saw the fill.
 */
export function evmOrderDelivery(order: EvmOrder, orderId: Hex, solver: Hex): Delivery {
  return {
    orderId,
    destChain: order.destChain,
    recipient: order.recipient,
    outputToken: order.outputToken,
    amount: order.outputAmount,
    solver,
  }
}

const DELIVERY_TAG = 'PARX_XCHAIN_DELIVERY_V1\0' // 24 bytes, so the fields that follow are 8-aligned

/**
 * Sol-origin claims: attestors sign these exact bytes with ed25519; origin_settler finds them in
 * Ed25519-program instructions through the Instructions sysvar and compares them byte for byte:
 *   "PARX_XCHAIN_DELIVERY_V1\0" (24) | originProgram (32) | orderId (32) | destChain (32)
 *   | recipient (32) | outputToken (32) | amount u256 BE (32) | solver (32)            = 248 bytes
 * `originProgram` is the origin_settler program id, binding the statement to one deployment as the
 * EIP-712 domain does on the EVM side.
 */
export function solDeliveryMessage(d: Delivery, originProgram: Uint8Array): Uint8Array {
  return concat([
    toBytes(DELIVERY_TAG),
    key32(originProgram),
    hex32(d.orderId),
    hex32(d.destChain),
    hex32(d.recipient),
    hex32(d.outputToken),
    u256be(d.amount),
    hex32(d.solver),
  ])
}

export const SOL_DELIVERY_MESSAGE_LEN = 248

// ---------------------------------------------------------------------------------------------

function key32(k: Uint8Array): Uint8Array {
  if (k.length !== 32) throw new RangeError('expected 32 bytes')
  return k
}
function hex32(h: Hex): Uint8Array {
  const b = hexToBytes(h)
  if (b.length !== 32) throw new RangeError(`expected 32 bytes, got ${b.length}`)
  return b
}
function u64le(v: bigint): Uint8Array {
  if (v < 0n || v >= 1n << 64n) throw new RangeError('u64 out of range')
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, v, true)
  return b
}
function i64le(v: bigint): Uint8Array {
  if (v < -(1n << 63n) || v >= 1n << 63n) throw new RangeError('i64 out of range')
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigInt64(0, v, true)
  return b
}
function u256be(v: bigint): Uint8Array {
  if (v < 0n || v >= 1n << 256n) throw new RangeError('u256 out of range')
  return hexToBytes(pad(`0x${v.toString(16)}`, { size: 32 }))
}
