import { createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto'
import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { legacySeal } from '../../test/helpers/legacy-seal.js'
import { derivedKey, KEY_LABELS, mppSecrets, platformKeyId, walletSeal } from './wallet-seal.js'

describe('walletSeal', () => {
  const key = `0x${randomBytes(32).toString('hex')}`

  it('opens what it sealed, and the sealed text does not contain the key', () => {
    const s = walletSeal(key)
    const pk = generatePrivateKey()
    const id = randomUUID()
    const sealed = s.seal(id, pk)
    expect(sealed).not.toContain(pk.slice(2))
    expect(s.open(id, sealed)).toBe(pk)
  })

  it('refuses a sealed key moved to another agent, or opened with another platform key', () => {
    const pk = generatePrivateKey()
    const id = randomUUID()
    const sealed = walletSeal(key).seal(id, pk)
    expect(() => walletSeal(key).open(randomUUID(), sealed)).toThrow()
    expect(() => walletSeal(randomBytes(32).toString('hex')).open(id, sealed)).toThrow(/does not hold/)
    // A replica without the key answers a named 503 the operator can act on, never a 500.
    expect(() => walletSeal(randomBytes(32).toString('hex')).open(id, sealed)).toThrow(
      expect.objectContaining({ code: 'WALLET_KEY_UNAVAILABLE' }),
    )
    expect(() => walletSeal(randomBytes(32).toString('hex')).open(id, legacySeal(key, id, pk))).toThrow(
      expect.objectContaining({ code: 'WALLET_KEY_UNAVAILABLE' }),
    )
  })

  it('refuses a key of the wrong length', () => {
    expect(() => walletSeal('abcd')).toThrow(/32 bytes/)
  })

  it('seals v2 under an HKDF-derived key, never the platform key itself, and names the key by its id', () => {
    const pk = generatePrivateKey()
    const id = randomUUID()
    const sealed = walletSeal(key).seal(id, pk)
    const [v, kid] = sealed.split('.')
    expect(v).toBe('v2')
    expect(kid).toBe(platformKeyId(key))
    expect(kid).toMatch(/^[0-9a-f]{16}$/)
    // The AES key is HKDF-SHA256(platform key, label 'parx wallet seal v2'), distinct from the MPP key's.
    const expected = Buffer.from(
      hkdfSync('sha256', Buffer.from(key.slice(2), 'hex'), Buffer.alloc(0), 'parx wallet seal v2', 32),
    )
    expect(derivedKey(key, KEY_LABELS.walletSeal)).toEqual(expected)
    expect(derivedKey(key, KEY_LABELS.walletSeal)).not.toEqual(Buffer.from(key.slice(2), 'hex'))
    expect(derivedKey(key, KEY_LABELS.walletSeal)).not.toEqual(derivedKey(key, KEY_LABELS.mppChallenge))
    // A v1 opener (the platform key as AES key) cannot open it: the derivation is really used.
    expect(() => walletSeal(key).open(id, `v1.${sealed.split('.').slice(2).join('.')}`)).toThrow()
  })

  it('opens values sealed before key ids (v1, the platform key as AES key), with or without 0x in the key', () => {
    const pk = generatePrivateKey()
    const id = randomUUID()
    const old = legacySeal(key, id, pk)
    expect(walletSeal(key).open(id, old)).toBe(pk)
    expect(walletSeal(key.slice(2)).open(id, old)).toBe(pk)
    expect(walletSeal(key).isCurrent(old)).toBe(false)
  })

  it('after a rotation opens v1 and v2 values of the previous key, and seals only under the new one', () => {
    const next = `0x${randomBytes(32).toString('hex')}`
    const id = randomUUID()
    const [a, b] = [generatePrivateKey(), generatePrivateKey()]
    const v1 = legacySeal(key, id, a)
    const v2 = walletSeal(key).seal(id, b)
    const rotated = walletSeal(next, [key])
    expect(rotated.open(id, v1)).toBe(a)
    expect(rotated.open(id, v2)).toBe(b)
    expect(rotated.isCurrent(v2)).toBe(false)
    const resealed = rotated.seal(id, b)
    expect(resealed.split('.')[1]).toBe(platformKeyId(next))
    expect(rotated.isCurrent(resealed)).toBe(true)
    // Once re-sealed, the new key alone opens it.
    expect(walletSeal(next).open(id, resealed)).toBe(b)
  })
})

describe('mppSecrets', () => {
  it("issues the HKDF key and still accepts the SHA-256 derivation of before, and a previous key's", () => {
    const key = `0x${randomBytes(32).toString('hex')}`
    const old = `0x${randomBytes(32).toString('hex')}`
    const [issuing, ...accepted] = mppSecrets(key, [old])
    expect(issuing).toBe(derivedKey(key, KEY_LABELS.mppChallenge).toString('hex'))
    expect(accepted).toContain(createHash('sha256').update(`parx mpp challenge:${key}`).digest('hex'))
    expect(accepted).toContain(derivedKey(old, KEY_LABELS.mppChallenge).toString('hex'))
    expect(accepted).toContain(createHash('sha256').update(`parx mpp challenge:${old}`).digest('hex'))
  })
})
