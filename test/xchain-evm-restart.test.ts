import { Keypair, PublicKey } from '@solana/web3.js'
import { describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { until } from './helpers/api-calls.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { attestDelivered, PUSD_SOL, type XchainClient, xchainClient } from './helpers/xchain.js'
import { evmOrigin } from './helpers/xchain-evm.js'

const FILE = { xchain: { fillSeconds: 100, expirySeconds: 200 } }

describe('evm-origin orders across a restart', () => {
  it('orders in every stage (claimed, refunded, dropped, built, opened, delivered, attested) each resume to the right end, with one fill each', async () => {
    let d: TestDaemon = await startTestDaemon({ file: FILE })
    const { dataDir } = d
    let x: XchainClient = await xchainClient(d)
    let e = evmOrigin(d, x)
    const stage = (orderId: string) => e.status(orderId).then((r) => r.body)
    const orders: Record<string, { orderId: `0x${string}`; recipient: string; amount: bigint }> = {}
    try {
      // refunded: nobody fills it, Base's clock passes its expiry.
      await x.operator('/api/solver/pause', {})
      const r = await e.openOrder('2')
      await until(
        () => stage(r.orderId),
        (b) => b.stage === 'opened',
        'the open',
      )
      await e.passBaseTime(r.built.expires)
      await until(
        () => stage(r.orderId),
        (b) => b.status === 'refunded',
        'the refund',
      )
      orders.refunded = { orderId: r.orderId, recipient: r.built.recipient, amount: 0n }

      // dropped: built, never submitted, its fillDeadline passed on Base.
      const u = await e.newUser('2')
      const build = () =>
        x
          .post('/api/xchain/evm-origin/open/build', {
            user: u.address,
            inSym: TOKEN_A,
            outSym: TOKEN_A,
            uiAmount: '1',
            recipientSol: Keypair.generate().publicKey.toBase58(),
          })
          .then((b) => b.body)
      const dropped = await build()
      await e.passBaseTime(dropped.fillDeadline)
      await until(
        () => stage(dropped.orderId),
        (b) => b.stage === 'dropped',
        'the dropped lock',
      )
      orders.dropped = { orderId: dropped.orderId, recipient: dropped.recipient, amount: 0n }

      // claimed.
      await x.operator('/api/solver/resume')
      const c = await e.openOrder('3')
      await until(
        () => stage(c.orderId),
        (b) => b.status === 'claimed',
        'the claim',
      )
      orders.claimed = { orderId: c.orderId, recipient: c.built.recipient, amount: 3n * PUSD_SOL }

      // delivered and attested: deliveries on, claims held.
      await x.operator('/api/solver/pause', { deliveries: false, claims: true })
      for (const [name, amount] of [
        ['delivered', 4n],
        ['attested', 5n],
      ] as const) {
        const o = await e.openOrder(String(amount))
        await until(
          () => stage(o.orderId),
          (b) => b.stage === 'delivered',
          `${name} delivery`,
        )
        orders[name] = { orderId: o.orderId, recipient: o.built.recipient, amount: amount * PUSD_SOL }
      }
      // The worker's own attestation step, done here while claims are held.
      const attested = await attestDelivered(d, 'evm-origin', orders.attested!.orderId)
      expect(attested.signatures).toBe(2)
      expect(attested.moved).toBe(true)

      // opened: nothing at all happens to it.
      await x.operator('/api/solver/pause', {})
      const op = await e.openOrder('6')
      await until(
        () => stage(op.orderId),
        (b) => b.stage === 'opened',
        'the open',
      )
      orders.opened = { orderId: op.orderId, recipient: op.built.recipient, amount: 6n * PUSD_SOL }

      // built: handed out, not submitted yet.
      const b = await build()
      orders.built = { orderId: b.orderId, recipient: b.recipient, amount: 0n }
      expect(
        Object.fromEntries(
          await Promise.all(Object.entries(orders).map(async ([k, o]) => [k, (await stage(o.orderId)).stage])),
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
      e = evmOrigin(d, x)
      expect((await x.operator('/api/solver/heartbeat', undefined, 'GET')).body.paused).toEqual({
        deliveries: true,
        claims: true,
      })
      await x.operator('/api/solver/resume')
      for (const name of ['delivered', 'attested', 'opened'] as const) {
        const done = await until(
          () => stage(orders[name]!.orderId),
          (s) => s.status === 'claimed',
          `${name} to be claimed`,
        )
        expect(done.delivered).toBe(orders[name]!.amount.toString())
      }
      for (const [name, o] of Object.entries(orders)) {
        expect(await x.tokenBalance(new PublicKey(o.recipient), TOKEN_A), name).toBe(o.amount)
        expect((await e.fillRecord(o.orderId)) !== null, name).toBe(o.amount > 0n)
      }
      expect((await stage(orders.refunded!.orderId)).status).toBe('refunded')
      expect(await stage(orders.dropped!.orderId)).toMatchObject({ status: 'unknown', stage: 'dropped' })
      expect(await stage(orders.built!.orderId)).toMatchObject({ status: 'unknown', stage: 'built' })
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
