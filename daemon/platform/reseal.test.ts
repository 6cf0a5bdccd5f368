import { randomBytes, randomUUID } from 'node:crypto'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { legacySeal } from '../../test/helpers/legacy-seal.js'
import { openTestStore } from '../../test/helpers/store.js'
import type { Store } from '../store/store.js'
import { resealAll } from './reseal.js'
import { platformKeyId, walletSeal } from './wallet-seal.js'

/** Re-sealing after a platform key rotation, on SQLite and PostgreSQL: no wallet may be lost on the way. */
let store: Store
beforeAll(async () => {
  store = await openTestStore()
  await store.db
    .insertInto('platform_users')
    .values({ id: 'u1', wallet: null, name: null, created_at: Date.now() })
    .execute()
})
afterAll(async () => {
  await store?.close()
})

const hex32 = () => `0x${randomBytes(32).toString('hex')}`

async function addAgent(sealed: (id: string, pk: `0x${string}`) => string) {
  const id = randomUUID()
  const pk = generatePrivateKey()
  await store.db
    .insertInto('platform_agents')
    .values({
      id,
      user_id: 'u1',
      name: 'a',
      network: 'base-sepolia',
      address: privateKeyToAccount(pk).address,
      wallet_sealed: sealed(id, pk),
      per_payment_usd: null,
      daily_usd: null,
      allowed_hosts: null,
      created_at: Date.now(),
    })
    .execute()
  return { id, pk }
}

async function addEndpoint(secret: string | null) {
  const id = randomUUID()
  await store.db
    .insertInto('platform_endpoints')
    .values({
      id,
      user_id: 'u1',
      name: null,
      upstream_url: 'https://up.example/',
      price: '0.01',
      network: 'base-sepolia',
      token: 'USDC',
      pay_to: privateKeyToAccount(generatePrivateKey()).address,
      pay_to_agent_id: null,
      created_at: Date.now(),
      deleted_at: null,
      discoverable: 0,
      description: null,
      webhook_url: secret ? 'https://hook.example/' : null,
      webhook_secret: secret,
      updated_at: null,
    })
    .execute()
  return id
}

const sealedOf = async (id: string) =>
  (await store.db.selectFrom('platform_agents').select('wallet_sealed').where('id', '=', id).executeTakeFirstOrThrow())
    .wallet_sealed
const secretOf = async (id: string) =>
  (
    await store.db
      .selectFrom('platform_endpoints')
      .select('webhook_secret')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
  ).webhook_secret!

describe('resealAll', () => {
  it('moves v1 and old-key v2 wallets and webhook secrets to the new key; each still opens to the same secret, and the old key can go', async () => {
    const oldKey = hex32()
    const newKey = hex32()
    const v1 = await addAgent((id, pk) => legacySeal(oldKey, id, pk))
    const v2 = await addAgent((id, pk) => walletSeal(oldKey).seal(id, pk))
    const hookBytes = `0x${randomBytes(32).toString('hex')}` as const
    const hook = await addEndpoint('pending')
    await store.db
      .updateTable('platform_endpoints')
      .set({ webhook_secret: legacySeal(oldKey, `webhook:${hook}`, hookBytes) })
      .where('id', '=', hook)
      .execute()
    const rawHook = await addEndpoint(`raw.${randomBytes(32).toString('base64')}`)
    const rawBytes = `0x${Buffer.from((await secretOf(rawHook)).slice(4), 'base64').toString('hex')}`

    const rotated = walletSeal(newKey, [oldKey])
    const r = await resealAll(store, rotated)
    expect(r.keyId).toBe(platformKeyId(newKey))
    expect(r.agents).toMatchObject({ unopened: [] })
    expect(r.agents.resealed).toBeGreaterThanOrEqual(2)
    expect(r.webhooks).toMatchObject({ unopened: [] })
    expect(r.webhooks.resealed).toBeGreaterThanOrEqual(2)

    const only = walletSeal(newKey)
    expect(only.open(v1.id, await sealedOf(v1.id))).toBe(v1.pk)
    expect(only.open(v2.id, await sealedOf(v2.id))).toBe(v2.pk)
    expect(only.open(`webhook:${hook}`, await secretOf(hook))).toBe(hookBytes)
    expect(only.open(`webhook:${rawHook}`, await secretOf(rawHook))).toBe(rawBytes)

    // Run again: nothing left to do, nothing changed.
    const before = await sealedOf(v1.id)
    const again = await resealAll(store, rotated)
    expect(again.agents.resealed).toBe(0)
    expect(again.webhooks.resealed).toBe(0)
    expect(await sealedOf(v1.id)).toBe(before)
  })

  it('leaves a wallet no configured key opens exactly as it was, and names it', async () => {
    const lost = hex32()
    const a = await addAgent((id, pk) => walletSeal(lost).seal(id, pk))
    const before = await sealedOf(a.id)
    const r = await resealAll(store, walletSeal(hex32()))
    expect(r.agents.unopened).toContain(a.id)
    expect(await sealedOf(a.id)).toBe(before)
    // The key it needs, configured again, opens it.
    expect(walletSeal(hex32(), [lost]).open(a.id, before)).toBe(a.pk)
  })
})
