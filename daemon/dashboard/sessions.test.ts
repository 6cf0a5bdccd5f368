import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { ROTATE_AFTER_MS, SESSION_MAX_MS, SESSION_TTL_MS, sessionStore } from './sessions.js'

let store: Store
let t = 1_000_000
beforeAll(async () => {
  store = await openTestStore()
})
afterAll(async () => store?.close())

const sessions = () => sessionStore(store, () => t)
const wallet = '0x00000000000000000000000000000000000000Aa'

describe('dashboard sessions', () => {
  it('keeps the wallet lower case and a CSRF token per session', async () => {
    const { id, session } = await sessions().create(wallet)
    expect(session.wallet).toBe(wallet.toLowerCase())
    const r = await sessions().resolve(id, { mutating: true, csrf: session.csrfToken })
    expect(r).toEqual({ session })
  })

  it('refuses a change without the right CSRF token, but not a read', async () => {
    const { id } = await sessions().create(wallet)
    await expect(sessions().resolve(id, { mutating: true, csrf: null })).rejects.toMatchObject({
      code: 'CSRF_REJECTED',
    })
    await expect(sessions().resolve(id, { mutating: true, csrf: 'guess' })).rejects.toMatchObject({
      code: 'CSRF_REJECTED',
    })
    await expect(sessions().resolve(id, { mutating: false })).resolves.toBeDefined()
  })

  it('rotates the id after a while; the old id answers only during a short grace, then neither after the TTL', async () => {
    const { id, session } = await sessions().create(wallet)
    t += ROTATE_AFTER_MS + 1
    const r = await sessions().resolve(id, { mutating: false })
    expect(r.rotatedId).toBeDefined()
    expect(r.rotatedId).not.toBe(id)
    expect(r.session.csrfToken).toBe(session.csrfToken)
    t += 11_000
    await expect(sessions().resolve(id, { mutating: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED' })
    await expect(sessions().resolve(r.rotatedId, { mutating: false })).resolves.toMatchObject({
      session: { wallet: wallet.toLowerCase() },
    })
    t += SESSION_TTL_MS
    await expect(sessions().resolve(r.rotatedId, { mutating: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED' })
  })

  it('ends a sign-in after 8 hours however often it is rotated', async () => {
    let { id } = await sessions().create(wallet)
    const end = t + SESSION_MAX_MS
    let refused = false
    while (t < end + SESSION_TTL_MS) {
      t += ROTATE_AFTER_MS + 1
      try {
        id = (await sessions().resolve(id, { mutating: false })).rotatedId ?? id
      } catch (e) {
        expect(e).toMatchObject({ code: 'UNAUTHORIZED' })
        refused = true
        break
      }
    }
    expect(refused).toBe(true)
    expect(t).toBeLessThanOrEqual(end + ROTATE_AFTER_MS + 1)
  })

  it('destroy ends the current id and any rotated away', async () => {
    const { id } = await sessions().create(wallet)
    t += ROTATE_AFTER_MS + 1
    const { rotatedId } = await sessions().resolve(id, { mutating: false })
    await sessions().destroy(rotatedId!)
    await expect(sessions().resolve(id, { mutating: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED' })
    await expect(sessions().resolve(rotatedId, { mutating: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED' })
  })
})
