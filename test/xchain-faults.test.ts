import { Keypair } from '@solana/web3.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { chainRef, evmParty, solDeliveryMessage, solParty } from '../contracts/xchain/statement.js'
import { collectQuorum } from '../daemon/xchain/attestors/quorum.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import {
  isSettled,
  openOrder,
  PUSD_BASE,
  PUSD_SOL,
  passSolanaTime,
  resetXchainFaults,
  type XchainClient,
  xchainClient,
} from './helpers/xchain.js'

let d: TestDaemon
let x: XchainClient
beforeAll(async () => {
  d = await startTestDaemon({ file: { xchain: { fillSeconds: 20, expirySeconds: 30 } } })
  x = await xchainClient(d)
})
afterAll(async () => d?.close())
afterEach(() => resetXchainFaults(d, x))

const final = isSettled
const record = (orderId: string) => d.services.xchain.orders.get(orderId)
const reservation = (orderId: string) =>
  d.services.store.db.selectFrom('xchain_reservations').selectAll().where('id', '=', orderId).executeTakeFirst()
const fillsOf = async (orderId: string) => {
  const base = d.services.base
  const logs = await base.client.getContractEvents({
    address: base.contracts.outputSettler!,
    abi: (await import('../contracts/evm/artifacts/OutputSettler.js')).abi,
    eventName: 'Filled',
    fromBlock: 0n,
  })
  return logs.filter((l) => (l.args as { orderId: string }).orderId === orderId).length
}
async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await read()
    if (ok(v)) return v
    if (Date.now() > end)
      throw new Error(
        `timed out waiting for ${what}; last: ${JSON.stringify(v, (_, y) => (typeof y === 'bigint' ? y.toString() : y))}`,
      )
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('sol-origin faults and attacks', () => {
  it('an order nobody fills (solver paused) is refunded to the user after expiry, exactly, and its inventory released', async () => {
    expect((await x.operator('/api/solver/pause', {})).body).toEqual({ paused: { deliveries: true, claims: true } })
    const before = await x.baseBalance(d.services.accounts.solver, TOKEN_A)
    const { user, recipient, built } = await openOrder(x, TOKEN_A, '7', '10')
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(3n * PUSD_SOL)
    // The status route answers pending from the live lock; the worker records 'opened' a moment later.
    const pending = await x.waitStatus(built.orderId, (b) => b.status === 'pending' && b.stage === 'opened')
    expect(pending).toMatchObject({ stage: 'opened', delivered: '0', deliverRef: null })
    expect((await reservation(built.orderId))?.state).toBe('held')

    await passSolanaTime(d, x, built.expires)
    const done = await x.waitStatus(built.orderId, final)
    expect(done).toMatchObject({ status: 'refunded', delivered: '0', deliverRef: null, claimRef: null })
    expect(typeof done.refundRef).toBe('string')
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(10n * PUSD_SOL)
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(0n)
    expect(await x.baseBalance(d.services.accounts.solver, TOKEN_A)).toBe(before)
    expect(await fillsOf(built.orderId)).toBe(0)
    expect((await reservation(built.orderId))?.state).toBe('released')
    expect(await x.solBalance(user.publicKey)).toBe(0n)
  })

  it('one attestor offline: the quorum of the other two is met and the order is claimed', async () => {
    d.services.xchain.attestors[2]!.mode = 'offline'
    const { recipient, built } = await openOrder(x, TOKEN_A, '3')
    const done = await x.waitStatus(built.orderId, final)
    expect(done.status).toBe('claimed')
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(3n * PUSD_BASE)
    const signers = await d.services.store.db
      .selectFrom('xchain_attestations')
      .select('attestor')
      .where('order_id', '=', built.orderId)
      .execute()
    expect(signers.map((s) => s.attestor).sort()).toEqual([0, 1])
  })

  it('two attestors offline: the solver does not deliver (it could not be paid back); the order waits, then is refunded after expiry', async () => {
    d.services.xchain.attestors[0]!.mode = 'offline'
    d.services.xchain.attestors[1]!.mode = 'offline'
    const { user, recipient, built } = await openOrder(x, TOKEN_A, '4', '4')
    const waiting = await waitFor(
      () => record(built.orderId),
      (o) => Boolean(o?.stage === 'opened' && o.reason?.includes('attestors')),
      'the worker to wait for attestors',
    )
    expect(waiting!.deliverRef).toBeNull()
    expect((await x.status(built.orderId)).body.status).toBe('pending')

    await passSolanaTime(d, x, built.expires)
    expect((await x.waitStatus(built.orderId, final)).status).toBe('refunded')
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(4n * PUSD_SOL)
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(0n)
    expect(await fillsOf(built.orderId)).toBe(0)
  })

  it('one attestor signs a delivery that never happened: one signature is no quorum, the claim fails on chain, and the user is refunded', async () => {
    await x.operator('/api/solver/pause', { deliveries: true, claims: true })
    const { user, built } = await openOrder(x, TOKEN_A, '5', '5')
    await x.waitStatus(built.orderId, (b) => b.status === 'pending')
    const solverBefore = await x.tokenBalance(x.solver, TOKEN_A)
    const liar = d.services.xchain.attestors[0]!
    liar.mode = 'lying'
    const program = d.services.solana.programs.originSettler!
    const base = d.services.base
    // The statement a dishonest solver would want: delivered in full, crediting the solver.
    const statement = `0x${Buffer.from(
      solDeliveryMessage(
        {
          orderId: built.orderId,
          destChain: chainRef(base.spec.caip2),
          recipient: evmParty(built.recipient),
          outputToken: evmParty(base.tokens[TOKEN_A]!.address),
          amount: BigInt(built.outAmountBase),
          solver: solParty(x.solver.toBytes()),
        },
        program.toBytes(),
      ),
    ).toString('hex')}` as const
    const q = await collectQuorum(d.services.xchain.attestors, {
      rail: 'sol-origin',
      orderId: built.orderId,
      statement,
    })
    expect(q.signatures.map((s) => s.attestor)).toEqual([0])
    expect(q.refusals.join(' ')).toMatch(/no fill/)

    // Presented on chain anyway, one attestor's signature does not open the vault.
    const o = (await record(built.orderId))!
    const rail = d.services.xchain.rails['sol-origin']!
    await expect(rail.claim(o, { statement, signatures: q.signatures }, async () => {})).rejects.toThrow(
      /custom program error: 0xb|QUORUM|0xb/,
    )
    expect((await rail.readSource(o)).state).toBe('open')

    // Still undelivered at expiry: the sweep refunds it (refunds go on while the solver is paused).
    await passSolanaTime(d, x, built.expires)
    expect((await x.waitStatus(built.orderId, final)).status).toBe('refunded')
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(5n * PUSD_SOL)
    expect(await x.tokenBalance(x.solver, TOKEN_A)).toBe(solverBefore)
  }, 60_000)

  it("delivered but not claimed before expiry goes to attention (the solver's loss, never the user's); the operator refund returns the input", async () => {
    await x.operator('/api/solver/pause', { deliveries: false, claims: true })
    const { user, recipient, built } = await openOrder(x, TOKEN_A, '6', '6')
    await x.waitStatus(built.orderId, (b) => b.stage === 'delivered')
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(6n * PUSD_BASE)
    await passSolanaTime(d, x, built.expires)
    const attention = await x.waitStatus(built.orderId, (b) => b.status === 'attention')
    expect(attention.reason).toMatch(/not claimed before expires/)
    const settle = await x.operator('/api/xchain/sol-origin/settle', { orderId: built.orderId })
    expect(settle.body).toMatchObject({
      orderId: built.orderId,
      rail: 'sol-origin',
      stage: 'attention',
      status: 'attention',
    })
    const refund = await x.operator('/api/xchain/sol-origin/refund', { orderId: built.orderId })
    expect(refund.body).toMatchObject({ stage: 'refunded', status: 'refunded' })
    expect((await x.status(built.orderId)).body).toMatchObject({ status: 'refunded', delivered: '6000000000000000000' })
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(6n * PUSD_SOL)
    expect(await fillsOf(built.orderId)).toBe(1)
  })

  it('the operator refund refuses an order that has not expired, and an order of the other rail', async () => {
    await x.operator('/api/solver/pause', {})
    const { built } = await openOrder(x, TOKEN_A, '1')
    await x.waitStatus(built.orderId, (b) => b.status === 'pending')
    const early = await x.operator('/api/xchain/sol-origin/refund', { orderId: built.orderId })
    expect([early.status, early.body.code]).toEqual([400, 'BAD_REQUEST'])
    expect(early.body.error).toMatch(/refundable only after its expiry/)
    const other = await x.operator('/api/xchain/evm-origin/refund', { orderId: built.orderId })
    expect([other.status, other.body.code]).toEqual([400, 'BAD_REQUEST'])
    expect(other.body.error).toMatch(/is a sol-origin order/)
    await passSolanaTime(d, x, built.expires)
    expect((await x.waitStatus(built.orderId, final)).status).toBe('refunded')
  })

  it('a lock that never confirms is unknown, and its reservation is released once its blockhash expired', async () => {
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '2')
    const r = await x.build(user, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '2', recipientEvm: x.newRecipient() })
    expect(r.status).toBe(200)
    expect((await x.status(r.body.orderId)).body).toMatchObject({ status: 'unknown', stage: 'built' })
    expect((await reservation(r.body.orderId))?.state).toBe('held')
    const height = await x.connection.getBlockHeight('confirmed')
    await d.services.solana.testHooks!.advanceSlots(r.body.lastValidBlockHeight - height + 1)
    await waitFor(
      () => reservation(r.body.orderId),
      (v) => v?.state === 'released',
      'the reservation to be released',
    )
    const s = (await x.status(r.body.orderId)).body
    expect(s).toMatchObject({ status: 'unknown', stage: 'dropped' })
    expect(s.reason).toMatch(/never confirmed/)
    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(2n * PUSD_SOL)
  })
})
