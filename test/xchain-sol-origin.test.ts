import { Keypair, Transaction } from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { type XchainClient, xchainClient } from './helpers/xchain.js'

let d: TestDaemon
let x: XchainClient
beforeAll(async () => {
  d = await startTestDaemon({ file: { xchain: { fillSeconds: 20, expirySeconds: 30 } } })
  x = await xchainClient(d)
})
afterAll(async () => d?.close())

describe('sol-origin: lock on Solana, fill on Base, claim on Solana', () => {
  it('a wallet with 0 SOL opens; the solver delivers on Base, 2 of 3 attestors sign, the solver claims: balances exact on both chains', async () => {
    const user = Keypair.generate()
    await x.fund(user.publicKey, TOKEN_A, '100')
    const recipient = x.newRecipient()
    const solver = d.services.accounts.solver
    const before = {
      userSol: await x.tokenBalance(user.publicKey, TOKEN_A),
      solverSol: await x.tokenBalance(x.solver, TOKEN_A),
      recipient: await x.baseBalance(recipient, TOKEN_A),
      solverBase: await x.baseBalance(solver, TOKEN_A),
    }
    expect(await x.solBalance(user.publicKey)).toBe(0n)

    const r = await x.build(user, { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '12.5', recipientEvm: recipient })
    expect(r.status).toBe(200)
    const built = r.body
    expect(built).toMatchObject({
      rail: 'sol-origin',
      inAmount: 12.5,
      outAmount: 12.5,
      inAmountBase: '12500000000',
      outAmountBase: '12500000000000000000',
      outToken: TOKEN_A,
      recipient,
      feePayer: x.solver.toBase58(),
    })
    expect(built.orderId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(built.expires).toBeGreaterThan(built.fillDeadline)
    const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
    expect(tx.feePayer!.equals(x.solver)).toBe(true)
    expect(tx.signatures.map((s) => [s.publicKey.toBase58(), s.signature !== null])).toEqual([
      [x.solver.toBase58(), true],
      [user.publicKey.toBase58(), false],
    ])
    // Before the lock lands: nothing confirmed on chain.
    expect((await x.status(built.orderId)).body).toMatchObject({ status: 'unknown', orderId: built.orderId })

    await x.submit(user, built)
    const done = await x.waitStatus(built.orderId, (b) => b.status !== 'pending' && b.status !== 'unknown')
    expect(done).toMatchObject({
      orderId: built.orderId,
      rail: 'sol-origin',
      status: 'claimed',
      delivered: '12500000000000000000',
      recipient,
      reason: null,
    })
    expect(done.deliverRef).toMatch(/^0x[0-9a-f]{64}$/)
    expect(typeof done.claimRef).toBe('string')

    expect(await x.tokenBalance(user.publicKey, TOKEN_A)).toBe(before.userSol - 12_500_000_000n)
    expect(await x.tokenBalance(x.solver, TOKEN_A)).toBe(before.solverSol + 12_500_000_000n)
    expect(await x.baseBalance(recipient, TOKEN_A)).toBe(before.recipient + 12_500_000_000_000_000_000n)
    expect(await x.baseBalance(solver, TOKEN_A)).toBe(before.solverBase - 12_500_000_000_000_000_000n)
    expect(await x.solBalance(user.publicKey)).toBe(0n)
    // The id answers with or without 0x.
    expect((await x.status(built.orderId.slice(2))).body.status).toBe('claimed')
  })
})

describe('sol-origin requests that are refused', () => {
  const user = Keypair.generate()
  const good = () => ({ inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '1', recipientEvm: x.newRecipient() })
  beforeAll(async () => x.fund(user.publicKey, TOKEN_A, '10'))

  it('a recipient that is not a checksummed EVM address, or not an address at all, is a 400 naming the field', async () => {
    const lower = x.newRecipient().toLowerCase()
    const r = await x.build(user, { ...good(), recipientEvm: lower })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe('BAD_REQUEST')
    expect(r.body.error).toMatch(/recipientEvm.*checksum/)
    for (const bad of ['0x1234', 'not-an-address', x.solver.toBase58(), 42]) {
      const b = await x.build(user, { ...good(), recipientEvm: bad })
      expect([b.status, b.body.code]).toEqual([400, 'BAD_REQUEST'])
    }
  })

  it('over the cross-chain cap is refused before anything is read or signed', async () => {
    const r = await x.build(user, { ...good(), uiAmount: '5000.000000001' })
    expect([r.status, r.body.code]).toEqual([400, 'AMOUNT_TOO_LARGE'])
    expect(r.body.error).toMatch(/cross-chain cap of 5000/)
  })

  it('short Base inventory is a 400 with a clear message; the internal reserve route holds it and release frees it', async () => {
    const solver = d.services.accounts.solver
    const balance = await x.baseBalance(solver, TOKEN_A)
    const keep = 1_000_000_000_000_000_000n // 1 PUSD stays free
    const hold = await x.operator('/api/reserve', {
      network: d.services.base.key,
      token: TOKEN_A,
      amount: (balance - keep).toString(),
      ref: 'test',
    })
    expect(hold.status).toBe(200)
    expect(hold.body).toMatchObject({ network: d.services.base.key, token: TOKEN_A, available: keep.toString() })
    try {
      const r = await x.build(user, { ...good(), uiAmount: '2' })
      expect([r.status, r.body.code]).toEqual([400, 'INVENTORY_SHORT'])
      expect(r.body.error).toMatch(/inventory on .* is short.*no fallback sourcing/)
      // What is free still builds.
      expect((await x.build(user, { ...good(), uiAmount: '1' })).status).toBe(200)
    } finally {
      const rel = await x.operator('/api/reserve/release', { id: hold.body.id })
      expect(rel.body).toEqual({ id: hold.body.id, released: true, state: 'released' })
    }
    expect((await x.build(user, { ...good(), uiAmount: '2' })).status).toBe(200)
  })

  it('a user holding less than uiAmount, an unknown symbol, a missing field: 400 with its code', async () => {
    expect((await x.build(user, { ...good(), uiAmount: '11' })).body.code).toBe('INSUFFICIENT_BALANCE')
    expect((await x.build(user, { ...good(), outSym: 'NOPE' })).body.code).toBe('UNKNOWN_TOKEN')
    const { recipientEvm: _, ...missing } = good()
    const r = await x.build(user, missing)
    expect([r.status, r.body.error]).toEqual([400, "missing field 'recipientEvm'"])
  })

  it('status: malformed ids are 400, an unknown id is unknown, the wrong rail is unknown with the right one named', async () => {
    for (const bad of ['xyz', 'ab'.repeat(31) + 'a', '0x' + 'ab'.repeat(33), '0x' + 'zz'.repeat(32)]) {
      const r = await x.status(bad)
      expect([r.status, r.body.code]).toEqual([400, 'BAD_REQUEST'])
    }
    const unknown = `0x${'ab'.repeat(32)}`
    expect((await x.status(unknown.slice(2).toUpperCase())).body).toMatchObject({
      orderId: unknown,
      rail: 'sol-origin',
      status: 'unknown',
      delivered: '0',
    })
    const { built } = await (await import('./helpers/xchain.js')).openOrder(x, TOKEN_A, '1')
    await x.waitStatus(built.orderId, (b) => b.status === 'claimed')
    const wrong = await x.status(built.orderId, 'evm-origin')
    expect(wrong.status).toBe(200)
    expect(wrong.body).toMatchObject({ rail: 'evm-origin', status: 'unknown' })
    expect(wrong.body.reason).toMatch(/rail=sol-origin/)
    expect((await x.status(built.orderId, 'sideways')).status).toBe(400)
  })

  it('operator routes refuse partner keys (401 pointing to status polling); the heartbeat reports the worker', async () => {
    const r = await x.get('/api/solver/heartbeat')
    expect(r.status).toBe(401)
    expect(r.body.error).toMatch(/poll GET \/api\/xchain\/status/)
    const settle = await x.post('/api/xchain/sol-origin/settle', { orderId: `0x${'ab'.repeat(32)}` })
    expect(settle.status).toBe(401)
    const hb = await x.operator('/api/solver/heartbeat', undefined, 'GET')
    expect(hb.body).toMatchObject({
      ok: true,
      leading: true,
      paused: { deliveries: false, claims: false },
      rails: ['sol-origin', 'evm-origin'],
    })
    expect(hb.body.attestors).toEqual([
      { index: 0, online: true },
      { index: 1, online: true },
      { index: 2, online: true },
    ])
    expect(hb.body.orders.claimed).toBeGreaterThan(0)
    const unknownOrder = await x.operator('/api/xchain/sol-origin/settle', { orderId: `0x${'ab'.repeat(32)}` })
    expect([unknownOrder.status, unknownOrder.body.code]).toEqual([404, 'NOT_FOUND'])
  })

  it('capabilities report both cross-chain flows served', async () => {
    const caps = await d.call('/api/capabilities')
    expect(caps.flows['xchain.sol-origin'].enabled).toBe(true)
    expect(caps.flows['xchain.evm-origin'].enabled).toBe(true)
  })
})

describe('parx solver (operator commands)', () => {
  it('pause, heartbeat and resume through the compiled CLI', async () => {
    const { execFile } = await import('node:child_process')
    const parx = (args: string[]) =>
      new Promise<any>((resolve, reject) => {
        execFile(
          process.execPath,
          ['bin/parx.js', '-o', 'json', ...args, '--operator-token', d.services.keys.operatorToken],
          {
            env: { ...process.env, PARX_API_URL: d.urls.api, NO_COLOR: '1' },
          },
          (err, stdout, stderr) => (err ? reject(new Error(`${err.message}: ${stderr}`)) : resolve(JSON.parse(stdout))),
        )
      })
    expect(await parx(['solver', 'pause', '--keep-delivering'])).toEqual({
      paused: { deliveries: false, claims: true },
    })
    expect((await parx(['solver', 'heartbeat'])).paused).toEqual({ deliveries: false, claims: true })
    expect(await parx(['solver', 'resume'])).toEqual({ paused: { deliveries: false, claims: false } })
    const hb = await parx(['solver', 'heartbeat'])
    expect(hb).toMatchObject({
      ok: true,
      leading: true,
      paused: { deliveries: false, claims: false },
      rails: ['sol-origin', 'evm-origin'],
    })
  })
})

describe('the xchain.sol-origin flow switched off', () => {
  it('answers FLOW_DISABLED and capabilities say so', async () => {
    const off = await startTestDaemon({ file: { flows: { 'xchain.sol-origin': false } } })
    try {
      const key = await off.partnerKey()
      const r = await off.raw('/api/xchain/sol-origin/open/build', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          user: Keypair.generate().publicKey.toBase58(),
          inSym: TOKEN_A,
          outSym: TOKEN_A,
          uiAmount: '1',
          recipientEvm: x.newRecipient(),
        }),
      })
      expect([r.status, r.body.code]).toEqual([403, 'FLOW_DISABLED'])
      expect((await off.call('/api/capabilities')).flows['xchain.sol-origin'].enabled).toBe(false)
    } finally {
      await off.close()
    }
  })
})
