import { bytesToHex, type Hex, hexToBytes } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { signMessage } from '../../../src/sdk/solana/sign.js'
import type { XchainRail } from '../../../src/sdk/xchain/wire.js'
import { solanaKeypair } from '../../keys/solana-keypair.js'
import type { AttestorCheck, Signed } from '../rail.js'

/**
 * How an attestor behaves. `honest` is the only mode outside tests; `offline` never answers (a
 * crashed or unreachable attestor); `lying` signs whatever statement it is asked to, unchecked (a
 * stolen or buggy attestor). The fault tests switch these on the local profile.
 */
export type AttestorMode = 'honest' | 'offline' | 'lying'

export type AttestRequest = { rail: XchainRail; orderId: `0x${string}`; statement: `0x${string}` }
export type AttestAnswer = ({ ok: true } & Signed) | { ok: false; attestor: number; reason: string }

/** One attestor: its own keys and, per rail, its own chain reads (AttestorCheck). */
export type Attestor = {
  readonly index: number
  /** Its ed25519 public key (base58) and its EVM address: what the programs and the verifier know it by. */
  readonly ed25519: string
  readonly evm: `0x${string}`
  mode: AttestorMode
  /** Answers true when up; an offline attestor never answers (callers time out). */
  ping(): Promise<boolean>
  /**
   * Verifies the delivery on the destination chain itself, then signs its OWN statement, and only
   * when it equals the one asked for: an attestor never signs what it did not see.
   */
  attest(req: AttestRequest): Promise<AttestAnswer>
}

const never = () => new Promise<never>(() => {})

export function createAttestor(p: {
  index: number
  ed25519Secret: Uint8Array
  evmKey: Hex
  checks: Partial<Record<XchainRail, AttestorCheck>>
}): Attestor {
  const kp = solanaKeypair(p.ed25519Secret)
  const evm = privateKeyToAccount(p.evmKey)
  const a: Attestor = {
    index: p.index,
    ed25519: kp.publicKey.toBase58(),
    evm: evm.address,
    mode: 'honest',
    async ping() {
      if (a.mode === 'offline') return never()
      return true
    },
    async attest(req) {
      if (a.mode === 'offline') return never()
      const refuse = (reason: string): AttestAnswer => ({ ok: false, attestor: p.index, reason })
      const check = p.checks[req.rail]
      if (!check) return refuse(`attestor ${p.index} does not attest ${req.rail} orders`)
      let statement = req.statement
      let scheme: 'ed25519' | 'secp256k1-digest' = req.rail === 'sol-origin' ? 'ed25519' : 'secp256k1-digest'
      if (a.mode !== 'lying') {
        const seen = await check.verify(req.orderId)
        if (!seen.ok) return refuse(`attestor ${p.index}: ${seen.reason}`)
        if (seen.statement.toLowerCase() !== req.statement.toLowerCase()) {
          return refuse(`attestor ${p.index}: the statement asked for differs from the delivery it read on chain`)
        }
        statement = seen.statement
        scheme = seen.scheme
      }
      if (scheme === 'ed25519') {
        const signature = bytesToHex(signMessage(kp, hexToBytes(statement)))
        return { ok: true, attestor: p.index, signer: a.ed25519, signature }
      }
      const signature = await evm.sign({ hash: statement })
      return { ok: true, attestor: p.index, signer: evm.address, signature }
    },
  }
  return a
}
