import { Keypair } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import * as OutputSettler from '../contracts/evm/artifacts/OutputSettler.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { attestDelivered, openOrder, passSolanaTime, type XchainClient, xchainClient } from './helpers/xchain.js'

const FILE = { xchain: { fillSeconds: 100, expirySeconds: 200 } }
const PUSD_BASE = 1_000_000_000_000_000_000n

const stage = (x: XchainClient, orderId: string) => x.status(orderId).then((r) => r.body)
const fills = async (d: TestDaemon, orderId: string) => {
  const logs = await d.services.base.client.getContractEvents({
    address: d.services.base.contracts.outputSettler!,
    abi: OutputSettler.abi,
    eventName: 'Filled',
    fromBlock: 0n,
  })
  return logs.filter((l) => (l.args as { orderId: string }).orderId === orderId).length
}

describe('cross-chain orders across a restart', () => {
  it('orders in every stage (claimed, refunded, dropped, built, opened, delivered, attested) each resume to the right end, with one fill each', async () => {
    let d = await startTestDaemon({ file: FILE })
    const { dataDir } = d
    let x = await xchainClient(d)
    const orders: Record<string, { orderId: string; recipient: string; amount: bigint; built: any }> = {}
    try {
      // refunded: nobody fills it, the cluster's clock passes its expiry.
      await x.operator('/api/solver/pause', {})
      const r = await openOrder(x, TOKEN_A, '2')
      await passSolanaTime(d, x, r.built.expires)
      await until(
        () => stage(x, r.built.orderId),
        (b) => b.status === 'refunded',
        'the refund',
      )
      orders.refunded = { orderId: r.built.orderId, recipient: r.recipient, amount: 0n, built: r.built }

      // dropped: built, never submitted, blockhash expired.
      const u = Keypair.generate()
      await x.fund(u.publicKey, TOKEN_A, '1')
      const dropped = (
        await x.build(u, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '1', recipientEvm: x.newRecipient() })
      ).body
      await d.services.solana.testHooks!.advanceSlots(
        dropped.lastValidBlockHeight - (await x.connection.getBlockHeight('confirmed')) + 1,
      )
      await until(
        () => stage(x, dropped.orderId),
        (b) => b.stage === 'dropped',
        'the dropped lock',
      )
      orders.dropped = { orderId: dropped.orderId, recipient: dropped.recipient, amount: 0n, built: dropped }

      // claimed.
      await x.operator('/api/solver/resume')
      const c = await openOrder(x, TOKEN_A, '3')
      await until(
        () => stage(x, c.built.orderId),
        (b) => b.status === 'claimed',
        'the claim',
      )
      orders.claimed = { orderId: c.built.orderId, recipient: c.recipient, amount: 3n * PUSD_BASE, built: c.built }

      // delivered and attested: deliveries on, claims held.
      await x.operator('/api/solver/pause', { deliveries: false, claims: true })
      for (const [name, amount] of [
        ['delivered', 4n],
        ['attested', 5n],
      ] as const) {
        const o = await openOrder(x, TOKEN_A, String(amount))
        await until(
          () => stage(x, o.built.orderId),
          (b) => b.stage === 'delivered',
          `${name} delivery`,
        )
        orders[name] = { orderId: o.built.orderId, recipient: o.recipient, amount: amount * PUSD_BASE, built: o.built }
      }
      // The worker's own attestation step, done here while claims are held.
      const attested = await attestDelivered(d, 'sol-origin', orders.attested!.orderId)
      expect(attested.signatures).toBeGreaterThanOrEqual(2)
      expect(attested.moved).toBe(true)

      // opened: nothing at all happens to it.
      await x.operator('/api/solver/pause', {})
      const op = await openOrder(x, TOKEN_A, '6')
      await until(
        () => stage(x, op.built.orderId),
        (b) => b.stage === 'opened',
        'the open',
      )
      orders.opened = { orderId: op.built.orderId, recipient: op.recipient, amount: 6n * PUSD_BASE, built: op.built }

      // built: handed out, not submitted yet.
      const b = (await x.build(u, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '1', recipientEvm: x.newRecipient() }))
        .body
      orders.built = { orderId: b.orderId, recipient: b.recipient, amount: 0n, built: b }
      expect(
        Object.fromEntries(
          await Promise.all(Object.entries(orders).map(async ([k, o]) => [k, (await stage(x, o.orderId)).stage])),
        ),
      ).toEqual({
        refunded: 'refunded',
        dropped: 'dropped',
        claimed: 'claimed',
        delivered: 'delivered',
        attested: 'attested',
        opened: 'opened',
        built: 'built',
      })
    } finally {
      await d.close({ keepData: true })
    }

    d = await startTestDaemon({ dataDir, file: FILE })
    try {
      x = await xchainClient(d)
      // Still paused after the restart: the switch is in the store.
      expect((await x.operator('/api/solver/heartbeat', undefined, 'GET')).body.paused).toEqual({
        deliveries: true,
        claims: true,
      })
      await x.operator('/api/solver/resume')
      for (const name of ['delivered', 'attested', 'opened'] as const) {
        const done = await until(
          () => stage(x, orders[name]!.orderId),
          (s) => s.status === 'claimed',
          `${name} to be claimed`,
        )
        expect(done.delivered).toBe(orders[name]!.amount.toString())
      }
      for (const [name, o] of Object.entries(orders)) {
        if (o.amount > 0n) expect(await x.baseBalance(o.recipient as `0x${string}`, TOKEN_A), name).toBe(o.amount)
        expect(await fills(d, o.orderId), name).toBe(o.amount > 0n ? 1 : 0)
      }
      expect((await stage(x, orders.refunded!.orderId)).status).toBe('refunded')
      expect(await stage(x, orders.dropped!.orderId)).toMatchObject({ status: 'unknown', stage: 'dropped' })
      expect(await stage(x, orders.built!.orderId)).toMatchObject({ status: 'unknown', stage: 'built' })
      const held = await d.services.store.db
        .selectFrom('xchain_reservations')
        .select(['id', 'state'])
        .where(
          'id',
          'in',
          Object.values(orders).map((o) => o.orderId),
        )
        .execute()
      expect(
        Object.fromEntries(held.map((h) => [Object.entries(orders).find(([, o]) => o.orderId === h.id)![0], h.state])),
      ).toEqual({
        refunded: 'released',
        dropped: 'released',
        claimed: 'spent',
        delivered: 'spent',
        attested: 'spent',
        opened: 'spent',
        built: 'held',
      })
    } finally {
      await d.close()
    }
  }, 180_000)
})
