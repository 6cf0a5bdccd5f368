import { getAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../src/errors/base.js'
import type { Store } from '../store/store.js'
import type { WalletSeal } from './wallet-seal.js'

/** What `parx keys reseal` did: rows re-sealed, rows already current, rows it could not open (left as they were). */
export type ResealReport = {
  keyId: string
  agents: { resealed: number; current: number; unopened: string[] }
  webhooks: { resealed: number; current: number; unopened: string[] }
}

/**
 * Re-seals every agent wallet key and webhook secret not yet under the current platform key (see
 * ./wallet-seal.ts), one row at a time. A row is rewritten only when its new sealed value opens to
 * the same secret (and, for a wallet, to the agent's own address), and only if nobody changed it
 * meanwhile (compare-and-set on the old value), so a concurrent rotation or webhook secret change
 * is never overwritten. A row no key opens is left untouched and named: nothing is ever lost, and
 * the command can be run again after the missing key is configured. Idempotent.
 */
export async function resealAll(store: Store, seal: WalletSeal): Promise<ResealReport> {
  const { db } = store
  const report: ResealReport = {
    keyId: seal.keyId,
    agents: { resealed: 0, current: 0, unopened: [] },
    webhooks: { resealed: 0, current: 0, unopened: [] },
  }

  for (const a of await db
    .selectFrom('platform_agents')
    .select(['id', 'address', 'wallet_sealed'])
    .orderBy('id')
    .execute()) {
    if (seal.isCurrent(a.wallet_sealed)) {
      report.agents.current++
      continue
    }
    let next: string
    try {
      const pk = seal.open(a.id, a.wallet_sealed)
      if (privateKeyToAccount(pk).address !== getAddress(a.address))
        throw new BaseError('INTERNAL', 'opens to another wallet')
      next = seal.seal(a.id, pk)
      if (seal.open(a.id, next) !== pk) throw new BaseError('INTERNAL', 'the new seal does not open to the same key')
    } catch {
      report.agents.unopened.push(a.id)
      continue
    }
    const r = await db
      .updateTable('platform_agents')
      .set({ wallet_sealed: next })
      .where('id', '=', a.id)
      .where('wallet_sealed', '=', a.wallet_sealed)
      .executeTakeFirst()
    if (Number(r.numUpdatedRows) === 1) report.agents.resealed++
  }

  const endpoints = await db
    .selectFrom('platform_endpoints')
    .select(['id', 'webhook_secret'])
    .where('webhook_secret', 'is not', null)
    .orderBy('id')
    .execute()
  for (const e of endpoints) {
    const stored = e.webhook_secret!
    // `raw.`: kept unsealed by a deployment without a platform key; sealing it now is an improvement.
    if (seal.isCurrent(stored)) {
      report.webhooks.current++
      continue
    }
    const owner = `webhook:${e.id}`
    let next: string
    try {
      const secret = stored.startsWith('raw.')
        ? (`0x${Buffer.from(stored.slice(4), 'base64').toString('hex')}` as const)
        : seal.open(owner, stored)
      next = seal.seal(owner, secret)
      if (seal.open(owner, next) !== secret)
        throw new BaseError('INTERNAL', 'the new seal does not open to the same secret')
    } catch {
      report.webhooks.unopened.push(e.id)
      continue
    }
    const r = await db
      .updateTable('platform_endpoints')
      .set({ webhook_secret: next })
      .where('id', '=', e.id)
      .where('webhook_secret', '=', stored)
      .executeTakeFirst()
    if (Number(r.numUpdatedRows) === 1) report.webhooks.resealed++
  }
  return report
}
