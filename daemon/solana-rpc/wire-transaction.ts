import { PACKET_DATA_SIZE, PublicKey, VersionedMessage, VersionedTransaction } from '@solana/web3.js'
import bs58 from 'bs58'
import type { AccountState } from './spl-token-state.js'
import { SolanaTxError } from './tx-error.js'

export type DecodedTransaction = {
  /** The canonical encoding of the parsed form: litesvm aborts the process on bytes it cannot parse. */
  bytes: Uint8Array
  tx: VersionedTransaction
  /** The message's static account keys, base58 (each PublicKey.toBase58 call encodes again). */
  staticKeys: string[]
  /** The first signature, base58: the transaction's id. */
  signature: string
  version: 'legacy' | 0
  recentBlockhash: string
  /** Every required signature is present (none is all zeroes). */
  fullySigned: boolean
}

const malformed = (detail: string) =>
  new SolanaTxError('malformed', `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${detail}`)

/** Parses a wire transaction, refusing anything litesvm could choke on. */
export function decodeWireTransaction(bytes: Uint8Array): DecodedTransaction {
  if (bytes.length > PACKET_DATA_SIZE) {
    throw new SolanaTxError(
      'malformed',
      `transaction too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`,
    )
  }
  let tx: VersionedTransaction
  let canonical: Uint8Array
  try {
    tx = VersionedTransaction.deserialize(bytes)
    // Bytes as long as the canonical encoding of what was parsed are that encoding; anything else
    // (a non-minimal length prefix, trailing bytes) is encoded again.
    canonical = bytes.length === canonicalSize(tx) ? bytes : tx.serialize()
  } catch (e) {
    throw malformed(e instanceof Error ? e.message : String(e))
  }
  const first = tx.signatures[0]
  if (!first || tx.signatures.length !== tx.message.header.numRequiredSignatures) {
    throw new SolanaTxError(
      'malformed',
      'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    )
  }
  // The keys in base58 only when asked for: a preflight (the swap build's) never reads them.
  let staticKeys: string[] | undefined
  return {
    bytes: canonical,
    tx,
    get staticKeys() {
      return (staticKeys ??= tx.message.staticAccountKeys.map((k) => k.toBase58()))
    },
    signature: bs58.encode(first),
    version: tx.version === 0 ? 0 : 'legacy',
    recentBlockhash: tx.message.recentBlockhash,
    fullySigned: tx.signatures.every((s) => s.some((b) => b !== 0)),
  }
}

/** What a preflight needs of a transaction: the bytes litesvm runs and what is checked before. */
export type PreflightTransaction = Pick<DecodedTransaction, 'bytes' | 'version' | 'recentBlockhash' | 'fullySigned'>

/**
 * A quick reading of a wire transaction for a preflight (the swap build's, on bytes the daemon
 * just wrote): only a canonical legacy transaction passes, with minimal length prefixes, one
 * signature per required signer, every index in range and nothing after its last instruction;
 * for anything else it answers undefined and the caller takes `decodeWireTransaction`. It skips
 * web3.js's parse, which builds a PublicKey per key and re-encodes the data in base58.
 */
export function readCanonicalLegacy(bytes: Uint8Array): PreflightTransaction | undefined {
  if (bytes.length > PACKET_DATA_SIZE) return undefined
  let at = 0
  const len = (): number | undefined => {
    let n = 0
    for (let i = 0; i < 3 && at < bytes.length; i++) {
      const b = bytes[at++]!
      n |= (b & 0x7f) << (7 * i)
      if ((b & 0x80) === 0) return i > 0 && b === 0 ? undefined : n
    }
    return undefined
  }
  const signatures = len()
  if (signatures === undefined || signatures === 0) return undefined
  const sigStart = at
  at += 64 * signatures
  if (at + 3 > bytes.length) return undefined
  const [required, readonlySigned] = [bytes[at]!, bytes[at + 1]!]
  // A version prefix (v0) sets the top bit; those go through web3.js.
  if (required & 0x80 || required !== signatures || readonlySigned >= required) return undefined
  at += 3
  const keys = len()
  if (keys === undefined || keys < required) return undefined
  at += 32 * keys
  const blockhashAt = at
  at += 32
  const instructions = len()
  if (instructions === undefined || at > bytes.length) return undefined
  for (let i = 0; i < instructions; i++) {
    if (at >= bytes.length || bytes[at++]! >= keys) return undefined
    const accounts = len()
    if (accounts === undefined || at + accounts > bytes.length) return undefined
    for (let j = 0; j < accounts; j++) if (bytes[at++]! >= keys) return undefined
    const data = len()
    if (data === undefined) return undefined
    at += data
  }
  if (at !== bytes.length) return undefined
  let fullySigned = true
  for (let i = 0; i < signatures && fullySigned; i++)
    fullySigned = bytes.subarray(sigStart + 64 * i, sigStart + 64 * (i + 1)).some((b) => b !== 0)
  return {
    bytes,
    version: 'legacy',
    recentBlockhash: bs58.encode(bytes.subarray(blockhashAt, blockhashAt + 32)),
    fullySigned,
  }
}

const compactLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : 3)

/**
 * The size of `tx`'s canonical wire encoding, from its parsed counts: what `serialize()` would
 * write, without writing it (re-encoding cost as much as parsing). Every field but the length
 * prefixes is copied as is, and a prefix is minimal here: input of this exact size parsed to this
 * `tx` is its canonical encoding.
 */
function canonicalSize(tx: VersionedTransaction): number {
  const m = tx.message
  let size = compactLength(tx.signatures.length) + 64 * tx.signatures.length
  size +=
    (m.version === 0 ? 1 : 0) + 3 + compactLength(m.staticAccountKeys.length) + 32 * m.staticAccountKeys.length + 32
  size += compactLength(m.compiledInstructions.length)
  for (const ix of m.compiledInstructions) {
    size +=
      1 +
      compactLength(ix.accountKeyIndexes.length) +
      ix.accountKeyIndexes.length +
      compactLength(ix.data.length) +
      ix.data.length
  }
  if (m.version === 0) {
    size += compactLength(m.addressTableLookups.length)
    for (const l of m.addressTableLookups) {
      size +=
        32 +
        compactLength(l.writableIndexes.length) +
        l.writableIndexes.length +
        compactLength(l.readonlyIndexes.length) +
        l.readonlyIndexes.length
    }
  }
  return size
}

/** The same transaction with another blockhash (simulate's `replaceRecentBlockhash`). */
export function withBlockhash(decoded: DecodedTransaction, blockhash: string): DecodedTransaction {
  const tx = VersionedTransaction.deserialize(decoded.bytes)
  tx.message.recentBlockhash = blockhash
  return { ...decoded, tx, bytes: tx.serialize(), recentBlockhash: blockhash }
}

/** Parses a bare message (getFeeForMessage); undefined when it is not one. */
export function decodeWireMessage(bytes: Uint8Array): VersionedMessage | undefined {
  try {
    return VersionedMessage.deserialize(bytes)
  } catch {
    return undefined
  }
}

export type AccountKeys = {
  /** Static keys, then writable and readonly keys loaded from lookup tables: the index space
   *  instructions, balances and token balances refer to. */
  keys: string[]
  loaded: { writable: string[]; readonly: string[] }
}

const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111'
const LOOKUP_TABLE_META_SIZE = 56

/** Resolves a message's account keys, reading lookup tables from the cluster's current state. */
export function resolveAccountKeys(
  message: VersionedMessage,
  getAccount: (address: string) => AccountState | null,
  staticKeys?: string[],
): AccountKeys {
  const loaded = { writable: [] as string[], readonly: [] as string[] }
  for (const lookup of message.addressTableLookups) {
    const table = getAccount(lookup.accountKey.toBase58())
    // A missing or foreign table makes the runtime refuse the transaction; nothing to resolve.
    if (!table || table.owner !== LOOKUP_TABLE_PROGRAM) continue
    const at = (i: number) => {
      const start = LOOKUP_TABLE_META_SIZE + i * 32
      return start + 32 <= table.data.length
        ? new PublicKey(table.data.subarray(start, start + 32)).toBase58()
        : undefined
    }
    for (const i of lookup.writableIndexes) {
      const k = at(i)
      if (k) loaded.writable.push(k)
    }
    for (const i of lookup.readonlyIndexes) {
      const k = at(i)
      if (k) loaded.readonly.push(k)
    }
  }
  const keys = [
    ...(staticKeys ?? message.staticAccountKeys.map((k) => k.toBase58())),
    ...loaded.writable,
    ...loaded.readonly,
  ]
  return { keys, loaded }
}
