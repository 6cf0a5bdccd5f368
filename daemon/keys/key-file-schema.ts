import { z } from 'zod'
import { isBase58Of } from '../../src/sdk/solana/encoded-size.js'

const evmKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'not a 0x-prefixed 32-byte hex key')
const solanaKey = z.string().refine((s) => isBase58Of(s, 64), 'not a base58 64-byte Solana secret key')

/** The local key file, checked whole at start so a damaged one is named before anything runs. */
export const keyFileSchema = z.object({
  deployer: evmKey,
  solver: evmKey,
  facilitator: evmKey,
  attestors: z.tuple([evmKey, evmKey, evmKey]),
  solanaSolver: solanaKey,
  solanaFacilitator: solanaKey,
  solanaAttestors: z.tuple([solanaKey, solanaKey, solanaKey]),
  solanaMintAuthority: solanaKey,
  operatorToken: z.string().min(16),
  /** Seals the platform's agent wallets; added at start to a file from before the platform. */
  platformWallet: evmKey.optional(),
  /** Signs payment receipts (daemon/buyer/receipts/); added at start to a file from before receipts. */
  receipt: evmKey.optional(),
})
