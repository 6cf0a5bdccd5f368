import type { VersionedMessage } from '@solana/web3.js'
import { LAMPORTS_PER_SIGNATURE } from './genesis.js'

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111'
// Precompile signatures are charged like transaction signatures; the count is data[0].
const PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
])
// Builtins reserve 3k CU by default instead of 200k (what litesvm and current clusters charge).
const BUILTINS = new Set([
  '11111111111111111111111111111111',
  COMPUTE_BUDGET,
  'Vote111111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  ...PRECOMPILES,
])
const DEFAULT_BUILTIN_CU = 3_000n
const DEFAULT_PROGRAM_CU = 200_000n
const MAX_CU = 1_400_000n

const u32 = (d: Uint8Array) => BigInt(new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(1, true))
const u64 = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(1, true)

/**
 * The fee a message pays: a base fee per signature (transaction and precompile) plus the
 * prioritization fee, ceil(compute unit price × compute unit limit / 1e6), as the runtime charges.
 * `staticKeys`: the message's static keys in base58, when already known.
 */
export function transactionFee(message: VersionedMessage, staticKeys?: string[]): bigint {
  let signatures = BigInt(message.header.numRequiredSignatures)
  let price = 0n
  let limit: bigint | undefined
  let defaultLimit = 0n
  for (const ix of message.compiledInstructions) {
    const program =
      (staticKeys ? staticKeys[ix.programIdIndex] : message.staticAccountKeys[ix.programIdIndex]?.toBase58()) ?? ''
    if (PRECOMPILES.has(program)) signatures += BigInt(ix.data[0] ?? 0)
    if (program === COMPUTE_BUDGET && ix.data.length >= 5 && ix.data[0] === 2) limit = u32(ix.data)
    if (program === COMPUTE_BUDGET && ix.data.length >= 9 && ix.data[0] === 3) price = u64(ix.data)
    defaultLimit += BUILTINS.has(program) ? DEFAULT_BUILTIN_CU : DEFAULT_PROGRAM_CU
  }
  const units = (limit ?? defaultLimit) > MAX_CU ? MAX_CU : (limit ?? defaultLimit)
  const priority = (price * units + 999_999n) / 1_000_000n
  return signatures * LAMPORTS_PER_SIGNATURE + priority
}
