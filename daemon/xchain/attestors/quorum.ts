import { type Hex, hexToBytes } from 'viem'
import { isSignedBy } from '../../../src/sdk/evm-signer.js'
import { ed25519Verifies } from '../../../src/sdk/solana/ed25519-keys.js'
import type { Signed } from '../rail.js'
import type { Attestor, AttestRequest } from './attestor.js'

/** The attestor quorum (docs/cross-chain.md "Cross-chain orders"): 2 of 3. */
export const QUORUM = 2

export type QuorumResult = { signatures: Signed[]; refusals: string[] }

/**
 * Asks every attestor at once and returns as soon as `needed` valid signatures are in, so one
 * attestor that is slow or offline never delays a claim; the others are not waited for. Each
 * answer is checked here too (right signer, valid signature over exactly this statement): a bad
 * one is dropped, never counted. Gives up after `timeoutMs` with what it has.
 */
export function collectQuorum(
  attestors: Attestor[],
  req: AttestRequest,
  opts: { needed?: number; timeoutMs?: number } = {},
): Promise<QuorumResult> {
  const needed = opts.needed ?? QUORUM
  const signatures: Signed[] = []
  const refusals: string[] = []
  return new Promise((resolve) => {
    let pending = attestors.length
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      // Exactly `needed` when met: a claim carries no more signatures than it needs (Solana's 1232-byte transactions).
      resolve({ signatures: signatures.slice(0, needed), refusals })
    }
    const timer = setTimeout(() => {
      refusals.push(`${pending} attestor(s) did not answer within ${opts.timeoutMs ?? 3_000} ms`)
      finish()
    }, opts.timeoutMs ?? 3_000)
    timer.unref?.()
    for (const a of attestors) {
      a.attest(req)
        .then(
          async (answer) => {
            if (done) return
            if (!answer.ok) refusals.push(answer.reason)
            else if (await validSignature(a, req, answer))
              signatures.push({ attestor: answer.attestor, signer: answer.signer, signature: answer.signature })
            else refusals.push(`attestor ${a.index}: its signature does not verify against its key and this statement`)
          },
          (e: unknown) => {
            refusals.push(`attestor ${a.index}: ${e instanceof Error ? e.message : String(e)}`)
          },
        )
        .finally(() => {
          pending--
          if (signatures.length >= needed || pending === 0) finish()
        })
    }
    if (attestors.length === 0) finish()
  })
}

/** Whether at least `needed` attestors answer a ping within `timeoutMs` (asked at once). */
export function quorumReachable(
  attestors: Attestor[],
  opts: { needed?: number; timeoutMs?: number } = {},
): Promise<boolean> {
  const needed = opts.needed ?? QUORUM
  return new Promise((resolve) => {
    let up = 0
    let answered = 0
    const timer = setTimeout(() => resolve(false), opts.timeoutMs ?? 1_000)
    timer.unref?.()
    for (const a of attestors) {
      a.ping()
        .then(
          (ok) => (ok ? up++ : undefined),
          () => undefined,
        )
        .finally(() => {
          answered++
          if (up >= needed) {
            clearTimeout(timer)
            resolve(true)
          } else if (answered === attestors.length) {
            clearTimeout(timer)
            resolve(false)
          }
        })
    }
  })
}

async function validSignature(a: Attestor, req: AttestRequest, s: Signed): Promise<boolean> {
  try {
    if (req.rail === 'sol-origin') {
      if (s.signer !== a.ed25519) return false
      return ed25519Verifies(hexToBytes(req.statement), hexToBytes(s.signature), s.signer)
    }
    if (s.signer.toLowerCase() !== a.evm.toLowerCase()) return false
    // Recovered with libsecp256k1 (~0.3 ms; viem's recoverAddress took ~1.7 ms, twice per evm-origin claim), and
    // refused as AttestationVerifierMofN would refuse it (high s, v other than 27/28): never counted into a claim that
    // reverts.
    return isSignedBy(a.evm, hexToBytes(req.statement), s.signature as Hex)
  } catch {
    return false
  }
}
