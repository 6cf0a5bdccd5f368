import { secp256k1 } from '@noble/curves/secp256k1'
import { Keypair } from '@solana/web3.js'
import { type Hex, keccak256, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import type { AttestorCheck } from '../rail.js'
import { type Attestor, createAttestor } from './attestor.js'
import { collectQuorum, quorumReachable } from './quorum.js'

const orderId = keccak256(toHex('order'))
const statement = toHex(new Uint8Array(248).fill(7))
const digest = keccak256(toHex('delivery'))

/** What an attestor's chain reads concluded (the reads themselves run in the e2e tests). */
const sees = (s: `0x${string}` | undefined, scheme: 'ed25519' | 'secp256k1-digest' = 'ed25519'): AttestorCheck => ({
  verify: async () => (s ? { ok: true, statement: s, scheme } : { ok: false, reason: 'no fill on chain' }),
})
const attestors = (checks: AttestorCheck[]): Attestor[] =>
  checks.map((c, index) =>
    createAttestor({
      index,
      ed25519Secret: Keypair.generate().secretKey,
      evmKey: generatePrivateKey(),
      checks: { 'sol-origin': c, 'evm-origin': c },
    }),
  )

describe('the attestor quorum', () => {
  it('goes on at 2 valid signatures without waiting for an attestor that never answers', async () => {
    const a = attestors([sees(statement), sees(statement), sees(statement)])
    a[2]!.mode = 'offline'
    // The timeout is far beyond the test's own: resolving at all proves it did not wait for attestor 2.
    const q = await collectQuorum(a, { rail: 'sol-origin', orderId, statement }, { timeoutMs: 600_000 })
    expect(q.signatures.map((s) => s.attestor).sort()).toEqual([0, 1])
    expect(q.signatures.map((s) => s.signer)).toEqual(expect.arrayContaining([a[0]!.ed25519, a[1]!.ed25519]))
    expect(await quorumReachable(a, { timeoutMs: 600_000 })).toBe(true)
  })

  it('two offline: no quorum, and pings say so', async () => {
    const a = attestors([sees(statement), sees(statement), sees(statement)])
    a[0]!.mode = 'offline'
    a[1]!.mode = 'offline'
    const q = await collectQuorum(a, { rail: 'sol-origin', orderId, statement }, { timeoutMs: 200 })
    expect(q.signatures.map((s) => s.attestor)).toEqual([2])
    expect(q.refusals.join()).toMatch(/did not answer/)
    expect(await quorumReachable(a, { timeoutMs: 200 })).toBe(false)
  })

  it('an honest attestor refuses what it did not see on chain, or a statement other than the one it read; a liar alone is no quorum', async () => {
    const a = attestors([sees(undefined), sees(toHex(new Uint8Array(248).fill(8))), sees(undefined)])
    a[2]!.mode = 'lying'
    const q = await collectQuorum(a, { rail: 'sol-origin', orderId, statement })
    expect(q.signatures.map((s) => s.attestor)).toEqual([2])
    expect(q.refusals.join(' | ')).toMatch(/no fill on chain.*\| .*differs from the delivery it read/)
  })

  it('drops an answer whose signature does not verify against that attestor and this statement', async () => {
    const [good0, good1] = attestors([sees(statement), sees(statement)])
    const forger: Attestor = {
      ...good1!,
      index: 1,
      attest: async (req) => {
        const real = await good0!.attest(req)
        return real.ok ? { ...real, attestor: 1, signer: good1!.ed25519 } : real
      },
    }
    const q = await collectQuorum([good0!, forger], { rail: 'sol-origin', orderId, statement }, { timeoutMs: 1_000 })
    expect(q.signatures.map((s) => s.attestor)).toEqual([0])
    expect(q.refusals.join()).toMatch(/does not verify/)
  })

  it('evm-origin: secp256k1 signatures over the EIP-712 digest, recovered to each attestor', async () => {
    const a = attestors([
      sees(digest, 'secp256k1-digest'),
      sees(digest, 'secp256k1-digest'),
      sees(digest, 'secp256k1-digest'),
    ])
    const q = await collectQuorum(a, { rail: 'evm-origin', orderId, statement: digest })
    expect(q.signatures).toHaveLength(2)
    for (const s of q.signatures) expect(s.signer).toBe(a[s.attestor]!.evm)
  })

  it("evm-origin: counts only signatures the verifier contract accepts, by the attestor's key, over this digest, order after order", async () => {
    const keys = [generatePrivateKey(), generatePrivateKey()]
    const honest = keys.map((evmKey, index) =>
      createAttestor({
        index,
        ed25519Secret: Keypair.generate().secretKey,
        evmKey,
        checks: {
          'evm-origin': {
            verify: async () => ({ ok: true, statement: digestOf(currentOrder), scheme: 'secp256k1-digest' }),
          },
        },
      }),
    )
    let currentOrder = 0
    const digestOf = (i: number) => keccak256(toHex(`delivery ${i}`))
    // Several orders: each attestor's key is learnt once, then checked against.
    for (currentOrder = 0; currentOrder < 4; currentOrder++) {
      const q = await collectQuorum(honest, { rail: 'evm-origin', orderId, statement: digestOf(currentOrder) })
      expect(q.signatures.map((s) => s.attestor).sort()).toEqual([0, 1])
    }
    /** Attestor 1 answering with `sign` instead of its own signature. */
    const answering = (sign: (digest: Hex) => Promise<Hex> | Hex): Attestor => ({
      ...honest[1]!,
      attest: async (req) => ({ ok: true, attestor: 1, signer: honest[1]!.evm, signature: await sign(req.statement) }),
    })
    const statement = digestOf(currentOrder)
    const own = await privateKeyToAccount(keys[1]!).sign({ hash: statement })
    // The same signature with s -> n - s (and v flipped) recovers to the same key, but ECDSA.tryRecoverCalldata refuses it.
    const s = BigInt(`0x${own.slice(66, 130)}`)
    const highS =
      `${own.slice(0, 66)}${(secp256k1.CURVE.n - s).toString(16).padStart(64, '0')}${own.slice(130) === '1b' ? '1c' : '1b'}` as Hex
    const cases: [string, Attestor][] = [
      ['high s', answering(() => highS)],
      ['another key', answering((d) => privateKeyToAccount(keys[0]!).sign({ hash: d }))],
      ['another digest', answering(() => privateKeyToAccount(keys[1]!).sign({ hash: digestOf(99) }))],
      ['v flipped', answering(() => `${own.slice(0, 130)}${own.slice(130) === '1b' ? '1c' : '1b'}` as Hex)],
    ]
    for (const [what, bad] of cases) {
      const q = await collectQuorum([honest[0]!, bad], { rail: 'evm-origin', orderId, statement }, { timeoutMs: 1_000 })
      expect(
        q.signatures.map((x) => x.attestor),
        what,
      ).toEqual([0])
      expect(q.refusals.join(), what).toMatch(/does not verify/)
    }
    // And its own signature still counts.
    const q = await collectQuorum([honest[0]!, answering(() => own)], { rail: 'evm-origin', orderId, statement })
    expect(q.signatures.map((x) => x.attestor).sort()).toEqual([0, 1])
  })
})
