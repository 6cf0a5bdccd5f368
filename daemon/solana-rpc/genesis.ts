import { LOCAL_SOLANA_GENESIS } from '../../src/networks/registry.js'

/**
 * The genesis hash `getGenesisHash` answers. CAIP-2 keeps only the first 32 characters of a
 * genesis hash, so the full hash is the registry's id padded to a 43-character base58 string that
 * decodes to exactly 32 bytes, like a real cluster's: `solana:<first 32>` then names this cluster.
 */
export const LOCAL_SOLANA_GENESIS_HASH = `${LOCAL_SOLANA_GENESIS}${'1'.repeat(11)}`

/** Lamports charged per signature, as on mainnet. */
export const LAMPORTS_PER_SIGNATURE = 5000n

/** Slots per epoch without warm-up, as on mainnet. */
export const SLOTS_PER_EPOCH = 432_000

/** The node version we answer with (getVersion, context.apiVersion): the agave line litesvm 1.5 runs. */
export const SOLANA_CORE_VERSION = '2.3.13'
