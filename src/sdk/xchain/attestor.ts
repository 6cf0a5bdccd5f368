/**
 * The wire contract of one attestor run as its own process (`parx attestor --index N`): the daemon's
 * solver worker asks it over HTTP exactly what it asks an in-process attestor. The attestor reads
 * the chains itself and signs only what it saw, so these routes need no key: the worst a caller can
 * get is a signature over a true statement.
 */
import { z } from 'zod'
import { orderIdSchema, railSchema, type XchainRail } from './wire.js'

export const attestorPaths = { health: '/health', attest: '/attest' } as const

/** POST /attest */
export const AttestBody = z
  .object({
    rail: railSchema,
    orderId: orderIdSchema,
    /**
     * The statement the worker wants signed, hex (sol-origin: the delivery message bytes; evm-origin: the 32-byte
     * EIP-712 digest).
     */
    statement: z
      .string()
      .max(2 + 2 * 1024)
      .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'a statement is 0x and whole bytes of hex (at most 1024)')
      .transform((s) => s.toLowerCase() as `0x${string}`),
  })
  .strict()

/** POST /attest answers 200 with one of these (a refusal is an answer, not an HTTP error). */
export type AttestResponse =
  | { ok: true; attestor: number; signer: string; signature: `0x${string}` }
  | { ok: false; attestor: number; reason: string }

/** GET /health: who this attestor is (what the programs and the verifier know it by). */
export type AttestorHealth = { ok: true; index: number; ed25519: string; evm: `0x${string}`; rails: XchainRail[] }
