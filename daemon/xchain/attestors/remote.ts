import { BaseError } from '../../../src/errors/base.js'
import { type AttestorHealth, type AttestResponse, attestorPaths } from '../../../src/sdk/xchain/attestor.js'
import type { AttestAnswer, Attestor, AttestorMode } from './attestor.js'

/**
 * An attestor running as its own process (`parx attestor --index N`), asked over HTTP. Who it is
 * (its ed25519 and EVM keys) is known beforehand when the daemon holds them (the local profile's
 * keys.json); otherwise it is learnt from its /health. Either way the quorum checks every signature
 * against that identity, and the on-chain verifier checks it again.
 */
export function remoteAttestor(p: {
  index: number
  url: string
  expect?: { ed25519: string; evm: `0x${string}` }
  timeoutMs?: number
}): Attestor {
  const base = p.url.replace(/\/$/, '')
  const timeout = p.timeoutMs ?? 3_000
  let identity = p.expect
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    // Loaded at the first call, not at the daemon's start.
    const { request } = await import('undici')
    const res = await request(`${base}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      headersTimeout: timeout,
      bodyTimeout: timeout,
    })
    const text = await res.body.text()
    if (res.statusCode !== 200)
      throw new RemoteAttestorError(`attestor ${p.index} at ${base} answered ${res.statusCode}: ${text.slice(0, 200)}`)
    return JSON.parse(text) as T
  }
  /** Reads /health and checks the process is attestor `index` with the expected keys. */
  const health = async () => {
    const h = await call<AttestorHealth>(attestorPaths.health)
    if (h.index !== p.index)
      throw new RemoteAttestorError(`the attestor at ${base} is index ${h.index}, configured as ${p.index}`)
    if (identity && (identity.ed25519 !== h.ed25519 || identity.evm.toLowerCase() !== h.evm.toLowerCase())) {
      throw new RemoteAttestorError(`the attestor at ${base} signs with other keys than attestor ${p.index}'s`)
    }
    identity ??= { ed25519: h.ed25519, evm: h.evm }
    return h
  }
  const a: Attestor = {
    index: p.index,
    get ed25519() {
      return identity?.ed25519 ?? ''
    },
    get evm() {
      return identity?.evm ?? '0x'
    },
    mode: 'honest' as AttestorMode,
    async ping() {
      await health()
      return true
    },
    async attest(req): Promise<AttestAnswer> {
      if (!identity) await health()
      return call<AttestResponse>(attestorPaths.attest, req)
    },
  }
  return a
}

/** An attestor process that did not answer as the one configured (status, index or keys). */
export class RemoteAttestorError extends BaseError {
  override name = 'RemoteAttestorError'
  constructor(message: string) {
    super('ATTESTOR_UNAVAILABLE', message)
  }
}
