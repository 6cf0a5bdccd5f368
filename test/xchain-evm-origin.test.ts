import { Keypair } from '@solana/web3.js'
import {
  type Address,
  createWalletClient,
  decodeFunctionData,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as SourceEscrow from '../contracts/evm/artifacts/SourceEscrow.js'
import { evmDeliveryDigest, evmOrderDelivery, evmOrderId, evmParty } from '../contracts/xchain/statement.js'
import { collectQuorum } from '../daemon/xchain/attestors/quorum.js'
import { decodeEvmOrder } from '../daemon/xchain/rails/evm-origin/order-data.js'
import { TOKEN_A } from '../src/networks/registry.js'
import { splitSignature } from '../src/sdk/swap/sign.js'
import { typedDataForViem } from '../src/sdk/xchain/evm-origin-client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { isSettled, PUSD_BASE, PUSD_SOL, resetXchainFaults, type XchainClient, xchainClient } from './helpers/xchain.js'
import { evmOrigin } from './helpers/xchain-evm.js'

let d: TestDaemon
let x: XchainClient
beforeAll(async () => {
  d = await startTestDaemon({ file: { xchain: { fillSeconds: 20, expirySeconds: 30 } } })
  x = await xchainClient(d)
})
afterAll(async () => d?.close())
afterEach(() => resetXchainFaults(d, x))

const final = isSettled
const base = () => d.services.base
const record = (orderId: string) => d.services.xchain.orders.get(orderId)
const reservation = (orderId: string) =>
  d.services.store.db.selectFrom('xchain_reservations').selectAll().where('id', '=', orderId).executeTakeFirst()
const relays = async (orderId: string) =>
  (
    await d.services.store.db
      .selectFrom('tx_outbox')
      .select('hash')
      .where('purpose', '=', 'xchain-open')
      .where('refs', '=', orderId)
      .execute()
  ).length
const ethOf = (a: Address) => base().client.getBalance({ address: a })
const e = () => evmOrigin(d, x)
const status = (orderId: string, rail?: string) => e().status(orderId, rail)
const waitStatus = (orderId: string, until: (b: any) => boolean) => e().waitStatus(orderId, until)
const newUser = (fund: string) => e().newUser(fund)
const passBaseTime = (t: number) => e().passBaseTime(t)
const openOrder = (uiAmount: string, fund?: string) => e().openOrder(uiAmount, fund)
const fillRecord = (orderId: Hex) => e().fillRecord(orderId)

describe('evm-origin: lock on Base (gasless), fill on Solana, claim on Base', () => {
  it('a wallet with 0 ETH opens gaslessly; the solver delivers on Solana, 2 of 3 attestors sign, the solver claims: balances exact on both chains', async () => {
    const user = await newUser('100')
    const recipient = Keypair.generate().publicKey
    const solver = d.services.accounts.solver
    const escrow = base().contracts.escrow!
    const before = {
      user: await x.baseBalance(user.address, TOKEN_A),
      solverBase: await x.baseBalance(solver, TOKEN_A),
      escrow: await x.baseBalance(escrow, TOKEN_A),
      recipient: await x.tokenBalance(recipient, TOKEN_A),
      solverSol: await x.tokenBalance(x.solver, TOKEN_A),
    }
    expect(await ethOf(user.address)).toBe(0n)

    const r = await x.post('/api/xchain/evm-origin/open/build', {
      user: user.address,
      inSym: TOKEN_A,
      outSym: TOKEN_A,
      uiAmount: '12.5',
      recipientSol: recipient.toBase58(),
    })
    expect(r.status).toBe(200)
    const built = r.body
    expect(built).toMatchObject({
      rail: 'evm-origin',
      inAmount: 12.5,
      outAmount: 12.5,
      inAmountBase: '12500000000000000000',
      outAmountBase: '12500000000',
      inToken: TOKEN_A,
      outToken: TOKEN_A,
      recipient: recipient.toBase58(),
      chainId: base().chainId,
      escrow,
      status: `/api/xchain/status/${built.orderId}?rail=evm-origin`,
    })
    expect(built.orderId).toMatch(/^0x[0-9a-f]{64}$/)
    expect(built.expires).toBeGreaterThan(built.fillDeadline)
    expect(built.gasless.permit.message).toMatchObject({
      owner: user.address,
      spender: escrow,
      value: '12500000000000000000',
      deadline: String(built.fillDeadline),
    })
    expect(built.calls.open.to).toBe(escrow)
    expect(built.calls.approve.to).toBe(base().tokens[TOKEN_A]!.address)
    // Before the lock: nothing on chain.
    expect((await status(built.orderId)).body).toMatchObject({
      status: 'unknown',
      orderId: built.orderId,
      stage: 'built',
    })

    const orderSignature = await user.signTypedData(typedDataForViem(built.gasless.order))
    const permitSignature = await user.signTypedData(typedDataForViem(built.gasless.permit))
    const body = { orderId: built.orderId, orderSignature, permitSignature }
    const sub = await x.post(built.gasless.submit, body)
    expect(sub.status).toBe(200)
    expect(sub.body).toMatchObject({ rail: 'evm-origin', orderId: built.orderId, opened: true })
    expect(sub.body.openRef).toMatch(/^0x[0-9a-f]{64}$/)
    // A second submit of the same order answers the same, and relays nothing.
    const again = await x.post(built.gasless.submit, body)
    expect(again.body).toEqual(sub.body)
    expect(await relays(built.orderId)).toBe(1)

    const done = await waitStatus(built.orderId, final)
    expect(done).toMatchObject({
      orderId: built.orderId,
      rail: 'evm-origin',
      status: 'claimed',
      delivered: '12500000000',
      recipient: recipient.toBase58(),
      reason: null,
    })
    expect(typeof done.deliverRef).toBe('string')
    expect(done.claimRef).toMatch(/^0x[0-9a-f]{64}$/)

    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(before.user - (125n * PUSD_BASE) / 10n)
    expect(await x.baseBalance(solver, TOKEN_A)).toBe(before.solverBase + (125n * PUSD_BASE) / 10n)
    expect(await x.baseBalance(escrow, TOKEN_A)).toBe(before.escrow)
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(before.recipient + (125n * PUSD_SOL) / 10n)
    expect(await x.tokenBalance(x.solver, TOKEN_A)).toBe(before.solverSol - (125n * PUSD_SOL) / 10n)
    expect(await ethOf(user.address)).toBe(0n)
    expect((await reservation(built.orderId))?.state).toBe('spent')
    expect((await record(built.orderId))?.openRef).toBe(sub.body.openRef)
    // Submitting after the claim still answers the state, without a relay.
    expect((await x.post(built.gasless.submit, body)).body).toMatchObject({ opened: true, openRef: sub.body.openRef })
    expect(await relays(built.orderId)).toBe(1)
    // The id answers with or without 0x; asked on the other rail, it is unknown and the right rail is named.
    expect((await status(built.orderId.slice(2))).body.status).toBe('claimed')
    const wrong = await status(built.orderId, 'sol-origin')
    expect(wrong.body).toMatchObject({ rail: 'sol-origin', status: 'unknown' })
    expect(wrong.body.reason).toMatch(/rail=evm-origin/)
  })

  it('five submits of one order at once: one relay, every answer 200, the order claimed once', async () => {
    const user = await newUser('3')
    const recipient = Keypair.generate().publicKey
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '3',
        recipientSol: recipient.toBase58(),
      })
    ).body
    const body = {
      orderId: built.orderId,
      orderSignature: await user.signTypedData(typedDataForViem(built.gasless.order)),
      permitSignature: await user.signTypedData(typedDataForViem(built.gasless.permit)),
    }
    const answers = await Promise.all([0, 1, 2, 3, 4].map(() => x.post(built.gasless.submit, body)))
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
    expect(answers.some((a) => a.body.opened)).toBe(true)
    expect(await relays(built.orderId)).toBe(1)
    expect((await waitStatus(built.orderId, final)).status).toBe('claimed')
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(3n * PUSD_SOL)
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(0n)
  })

  it('a relay claim held by another submit is respected; one left by a crash (older than 60 s, nothing signed) is taken over', async () => {
    const user = await newUser('2')
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '2',
        recipientSol: Keypair.generate().publicKey.toBase58(),
      })
    ).body
    const body = {
      orderId: built.orderId,
      orderSignature: await user.signTypedData(typedDataForViem(built.gasless.order)),
      permitSignature: await user.signTypedData(typedDataForViem(built.gasless.permit)),
    }
    const orders = d.services.xchain.orders
    const live = `relaying:${Date.now()}`
    expect(await orders.swapOpenRef(built.orderId, null, live)).toBe(true)
    expect((await x.post(built.gasless.submit, body)).body).toMatchObject({ opened: false, openRef: null })
    expect(await relays(built.orderId)).toBe(0)
    const crashed = `relaying:${Date.now() - 120_000}`
    expect(await orders.swapOpenRef(built.orderId, live, crashed)).toBe(true)
    const sub = (await x.post(built.gasless.submit, body)).body
    expect(sub.opened).toBe(true)
    expect(sub.openRef).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await relays(built.orderId)).toBe(1)
    expect((await record(built.orderId))?.openRef).toBe(sub.openRef)
    expect((await waitStatus(built.orderId, final)).status).toBe('claimed')
  })

  it('a relay that crashed after signing (its openFor in the outbox, the row still claimed): the next submit adopts it, no second relay', async () => {
    const user = await newUser('2')
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '2',
        recipientSol: Keypair.generate().publicKey.toBase58(),
      })
    ).body
    const orderSignature = await user.signTypedData(typedDataForViem(built.gasless.order))
    const permit = splitSignature(await user.signTypedData(typedDataForViem(built.gasless.permit)))
    // What the crashed relay left: its claim on the row, and its openFor signed into the outbox and sent.
    const stale = `relaying:${Date.now() - 120_000}`
    expect(await d.services.xchain.orders.swapOpenRef(built.orderId, null, stale)).toBe(true)
    const order = decodeEvmOrder((await record(built.orderId))!.orderData)
    const data = encodeFunctionData({
      abi: SourceEscrow.abi,
      functionName: 'openFor',
      args: [order, orderSignature, BigInt(order.fillDeadline), permit.v, permit.r, permit.s],
    })
    const { hash } = await d.services
      .sender(base().key, 'solver')
      .sendAndWait({ to: built.escrow, data, gas: 300_000n, purpose: 'xchain-open', refs: built.orderId })
    const sub = (await x.post(built.gasless.submit, { orderId: built.orderId, orderSignature })).body
    expect(sub).toMatchObject({ opened: true, openRef: hash })
    expect(await relays(built.orderId)).toBe(1)
    expect((await waitStatus(built.orderId, final)).status).toBe('claimed')
  })

  it('the SDK helper builds, signs and submits in one call', async () => {
    const { user, recipient, orderId, submitted } = await openOrder('2', '5')
    expect(submitted.opened).toBe(true)
    expect((await waitStatus(orderId, final)).status).toBe('claimed')
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(2n * PUSD_SOL)
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(3n * PUSD_BASE)
  })
})

describe('evm-origin with a wallet that pays its own gas', () => {
  it('approve + open from the build response opens the order (no submit); it is delivered and claimed', async () => {
    const user = await newUser('4')
    await d.call('/api/local/faucet', { body: { network: base().key, to: user.address, token: 'ETH', amount: '1' } })
    const recipient = Keypair.generate().publicKey
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '4',
        recipientSol: recipient.toBase58(),
      })
    ).body
    const wallet = createWalletClient({ account: user, transport: http(base().rpcUrl) })
    for (const call of [built.calls.approve, built.calls.open]) {
      const hash = await wallet.sendTransaction({ chain: null, to: call.to, data: call.data })
      expect((await base().client.waitForTransactionReceipt({ hash })).status).toBe('success')
    }
    expect((await waitStatus(built.orderId, final)).status).toBe('claimed')
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(4n * PUSD_SOL)
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(0n)
    expect(await relays(built.orderId)).toBe(0)
    // A submit after the user's own open relays nothing and says it is open.
    const late = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: built.orderId,
      orderSignature: await user.signTypedData(typedDataForViem(built.gasless.order)),
    })
    expect(late.body).toMatchObject({ opened: true, openRef: null })
    expect(await relays(built.orderId)).toBe(0)
  })
})

describe('evm-origin status of orders this service did not build', () => {
  it('an unknown id is unknown; a lock someone opened on the escrow without a build is attention (nobody fills it; refundable after expiry)', async () => {
    const unknown = `0x${'cd'.repeat(32)}`
    expect((await status(unknown)).body).toMatchObject({
      orderId: unknown,
      rail: 'evm-origin',
      status: 'unknown',
      delivered: '0',
    })

    // A user who writes the order themselves (a copy of a built one with another nonce) and opens it.
    const user = await newUser('2')
    await d.call('/api/local/faucet', { body: { network: base().key, to: user.address, token: 'ETH', amount: '1' } })
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '1',
        recipientSol: Keypair.generate().publicKey.toBase58(),
      })
    ).body
    const { args } = decodeFunctionData({ abi: SourceEscrow.abi, data: built.calls.open.data })
    const own = { ...(args![0] as any), nonce: 77n }
    const wallet = createWalletClient({ account: user, transport: http(base().rpcUrl) })
    for (const call of [
      built.calls.approve,
      { to: built.escrow, data: encodeFunctionData({ abi: SourceEscrow.abi, functionName: 'open', args: [own] }) },
    ]) {
      expect(
        (
          await base().client.waitForTransactionReceipt({
            hash: await wallet.sendTransaction({ chain: null, ...call }),
          })
        ).status,
      ).toBe('success')
    }
    const s = (await status(evmOrderId(own, base().chainId, built.escrow))).body
    expect(s).toMatchObject({ status: 'attention' })
    expect(s.reason).toMatch(/did not build it/)
  })
})

describe('evm-origin faults', () => {
  it('one attestor offline: the quorum of the other two is met and the order is claimed', async () => {
    d.services.xchain.attestors[1]!.mode = 'offline'
    const { recipient, orderId } = await openOrder('3')
    expect((await waitStatus(orderId, final)).status).toBe('claimed')
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(3n * PUSD_SOL)
    const signers = await d.services.store.db
      .selectFrom('xchain_attestations')
      .select('attestor')
      .where('order_id', '=', orderId)
      .execute()
    expect(signers.map((s) => s.attestor).sort()).toEqual([0, 2])
  })

  it('two attestors offline: the solver does not deliver; the order waits, then is refunded after expiry', async () => {
    d.services.xchain.attestors[0]!.mode = 'offline'
    d.services.xchain.attestors[2]!.mode = 'offline'
    const { user, recipient, orderId, built } = await openOrder('4')
    const end = Date.now() + 30_000
    while (!(await record(orderId))?.reason?.includes('attestors')) {
      if (Date.now() > end)
        throw new Error(`the worker did not wait for attestors: ${JSON.stringify((await record(orderId))?.reason)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect((await record(orderId))!).toMatchObject({ stage: 'opened', deliverRef: null })
    await passBaseTime(built.expires)
    expect((await waitStatus(orderId, final)).status).toBe('refunded')
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(4n * PUSD_BASE)
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(0n)
    expect(await fillRecord(orderId)).toBeNull()
  })

  it("delivered but not claimed before expiry goes to attention (the solver's loss); the operator refund returns the input", async () => {
    await x.operator('/api/solver/pause', { deliveries: false, claims: true })
    const { user, recipient, orderId, built } = await openOrder('6')
    await waitStatus(orderId, (b) => b.stage === 'delivered')
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(6n * PUSD_SOL)
    await passBaseTime(built.expires)
    const attention = await waitStatus(orderId, (b) => b.status === 'attention')
    expect(attention.reason).toMatch(/not claimed before expires/)
    const settle = await x.operator('/api/xchain/evm-origin/settle', { orderId })
    expect(settle.body).toMatchObject({ orderId, rail: 'evm-origin', stage: 'attention', status: 'attention' })
    const refund = await x.operator('/api/xchain/evm-origin/refund', { orderId })
    expect(refund.body).toMatchObject({ orderId, rail: 'evm-origin', stage: 'refunded', status: 'refunded' })
    expect((await status(orderId)).body).toMatchObject({ status: 'refunded', delivered: '6000000000' })
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(6n * PUSD_BASE)
  })

  it('a lock that is never submitted is unknown, and its reservation is released once its fillDeadline passed on Base', async () => {
    const user = await newUser('2')
    const built = (
      await x.post('/api/xchain/evm-origin/open/build', {
        user: user.address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '2',
        recipientSol: Keypair.generate().publicKey.toBase58(),
      })
    ).body
    const s = (await status(built.orderId)).body
    expect(s).toMatchObject({ status: 'unknown', stage: 'built' })
    expect(s.reason).toMatch(/gasless.submit/)
    expect((await reservation(built.orderId))?.state).toBe('held')
    await passBaseTime(built.fillDeadline)
    const end = Date.now() + 30_000
    while ((await reservation(built.orderId))?.state !== 'released') {
      if (Date.now() > end) throw new Error('the reservation was not released')
      await new Promise((r) => setTimeout(r, 100))
    }
    const dropped = (await status(built.orderId)).body
    expect(dropped).toMatchObject({ status: 'unknown', stage: 'dropped' })
    expect(dropped.reason).toMatch(/never confirmed on Base before its fillDeadline/)
    // Too late to open: the submit says so and relays nothing.
    const late = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: built.orderId,
      orderSignature: await user.signTypedData(typedDataForViem(built.gasless.order)),
      permitSignature: await user.signTypedData(typedDataForViem(built.gasless.permit)),
    })
    expect([late.status, late.body.code]).toEqual([400, 'DEADLINE_EXPIRED'])
    expect(await relays(built.orderId)).toBe(0)
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(2n * PUSD_BASE)
  })

  it('an order nobody fills (solver paused) is refunded to the user after expiry, exactly, and its inventory released', async () => {
    await x.operator('/api/solver/pause', {})
    const solverSol = await x.tokenBalance(x.solver, TOKEN_A)
    const { user, recipient, orderId, built } = await openOrder('7', '10')
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(3n * PUSD_BASE)
    const pending = await waitStatus(orderId, (b) => b.status === 'pending' && b.stage === 'opened')
    expect(pending).toMatchObject({ delivered: '0', deliverRef: null })
    expect((await reservation(orderId))?.state).toBe('held')

    await passBaseTime(built.expires)
    const done = await waitStatus(orderId, final)
    expect(done).toMatchObject({ status: 'refunded', delivered: '0', deliverRef: null, claimRef: null })
    expect(done.refundRef).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(10n * PUSD_BASE)
    expect(await x.tokenBalance(recipient, TOKEN_A)).toBe(0n)
    expect(await x.tokenBalance(x.solver, TOKEN_A)).toBe(solverSol)
    expect(await fillRecord(orderId)).toBeNull()
    expect((await reservation(orderId))?.state).toBe('released')
    expect(await ethOf(user.address)).toBe(0n)
  })

  it('one attestor signs a delivery that never happened: one signature is no quorum, the claim reverts on Base, and the user is refunded', async () => {
    await x.operator('/api/solver/pause', {})
    const { user, orderId, built } = await openOrder('5')
    await waitStatus(orderId, (b) => b.status === 'pending')
    const solverBase = await x.baseBalance(d.services.accounts.solver, TOKEN_A)
    d.services.xchain.attestors[0]!.mode = 'lying'
    const o = (await record(orderId))!
    const order = decodeEvmOrder(o.orderData)
    const statement = evmDeliveryDigest(
      evmOrderDelivery(order, orderId, evmParty(d.services.accounts.solver)),
      base().chainId,
      base().contracts.verifier!,
    )
    const q = await collectQuorum(d.services.xchain.attestors, { rail: 'evm-origin', orderId, statement })
    expect(q.signatures.map((s) => s.attestor)).toEqual([0])
    expect(q.refusals.join(' ')).toMatch(/no fill/)

    const rail = d.services.xchain.rails['evm-origin']!
    await expect(rail.claim(o, { statement, signatures: q.signatures }, async () => {})).rejects.toThrow(/reverted/)
    expect((await rail.readSource(o)).state).toBe('open')
    expect(await x.baseBalance(d.services.accounts.solver, TOKEN_A)).toBe(solverBase)

    await passBaseTime(built.expires)
    expect((await waitStatus(orderId, final)).status).toBe('refunded')
    expect(await x.baseBalance(user.address, TOKEN_A)).toBe(5n * PUSD_BASE)
    expect(await x.baseBalance(d.services.accounts.solver, TOKEN_A)).toBe(solverBase)
  }, 60_000)
})

describe('evm-origin requests that are refused', () => {
  let user: PrivateKeyAccount
  const good = () => ({
    user: user.address,
    inSym: TOKEN_A,
    outSym: TOKEN_A,
    uiAmount: '1',
    recipientSol: Keypair.generate().publicKey.toBase58(),
  })
  const build = (body: Record<string, unknown>) => x.post('/api/xchain/evm-origin/open/build', body)
  beforeAll(async () => {
    user = await newUser('10')
  })

  it('a recipient that is not a Solana public key (an EVM address, checksummed or not, or garbage) is a 400 naming the field', async () => {
    const evm = getAddress(privateKeyToAccount(generatePrivateKey()).address)
    for (const bad of [evm, evm.toLowerCase(), 'not-a-key', '1111', 42]) {
      const r = await build({ ...good(), recipientSol: bad })
      expect([r.status, r.body.code]).toEqual([400, 'BAD_REQUEST'])
      expect(r.body.error).toMatch(/recipientSol/)
    }
    const r = await build({ ...good(), user: 'not-an-address' })
    expect([r.status, r.body.code]).toEqual([400, 'BAD_REQUEST'])
  })

  it('over the cross-chain cap is refused', async () => {
    const r = await build({ ...good(), uiAmount: '5000.000000001' })
    expect([r.status, r.body.code]).toEqual([400, 'AMOUNT_TOO_LARGE'])
    expect(r.body.error).toMatch(/cross-chain cap of 5000/)
  })

  it('a user holding less than uiAmount, an unknown symbol, more decimals than the Solana mint has: 400 with its code', async () => {
    expect((await build({ ...good(), uiAmount: '11' })).body.code).toBe('INSUFFICIENT_BALANCE')
    expect((await build({ ...good(), outSym: 'NOPE' })).body.code).toBe('UNKNOWN_TOKEN')
    expect((await build({ ...good(), uiAmount: '1.0000000001' })).status).toBe(400)
  })

  it('short Solana inventory is a 400 with a clear message', async () => {
    const balance = await x.tokenBalance(x.solver, TOKEN_A)
    const hold = await x.operator('/api/reserve', {
      network: d.services.solana.key,
      token: TOKEN_A,
      amount: (balance - PUSD_SOL).toString(),
      ref: 'test',
    })
    expect(hold.status).toBe(200)
    try {
      const r = await build({ ...good(), uiAmount: '2' })
      expect([r.status, r.body.code]).toEqual([400, 'INVENTORY_SHORT'])
      expect(r.body.error).toMatch(/inventory on .* is short.*no fallback sourcing/)
    } finally {
      await x.operator('/api/reserve/release', { id: hold.body.id })
    }
  })

  it('submit: a signature by another key is INVALID_SIGNATURE and nothing is relayed; an unknown or malformed order id is 404 / 400', async () => {
    const built = (await build(good())).body
    const other = privateKeyToAccount(generatePrivateKey())
    const r = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: built.orderId,
      orderSignature: await other.signTypedData(typedDataForViem(built.gasless.order)),
      permitSignature: await user.signTypedData(typedDataForViem(built.gasless.permit)),
    })
    expect([r.status, r.body.code]).toEqual([400, 'INVALID_SIGNATURE'])
    expect(await relays(built.orderId)).toBe(0)
    expect((await record(built.orderId))?.openRef).toBeNull()
    // Garbage signatures: a 4xx naming what to do, never a 500, and nothing relayed.
    const junkOrder = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: built.orderId,
      orderSignature: `0x${'11'.repeat(65)}`,
    })
    expect([junkOrder.status, junkOrder.body.code]).toEqual([400, 'INVALID_SIGNATURE'])
    const junkPermit = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: built.orderId,
      orderSignature: `0x${'11'.repeat(65)}`,
      permitSignature: `0x${'11'.repeat(64)}05`,
    })
    expect([junkPermit.status, junkPermit.body.code]).toEqual([400, 'INVALID_SIGNATURE'])
    expect(await relays(built.orderId)).toBe(0)
    const sig = `0x${'11'.repeat(65)}`
    const unknown = await x.post('/api/xchain/evm-origin/open/submit', {
      orderId: `0x${'ab'.repeat(32)}`,
      orderSignature: sig,
    })
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND'])
    for (const bad of ['xyz', 'ab'.repeat(31)]) {
      const m = await x.post('/api/xchain/evm-origin/open/submit', { orderId: bad, orderSignature: sig })
      expect([m.status, m.body.code]).toEqual([400, 'BAD_REQUEST'])
      expect([(await status(bad)).status]).toEqual([400])
    }
  })

  it('capabilities report the evm-origin flow served; the heartbeat names both rails', async () => {
    const caps = await d.call('/api/capabilities')
    expect(caps.flows['xchain.evm-origin'].enabled).toBe(true)
    const hb = await x.operator('/api/solver/heartbeat', undefined, 'GET')
    expect(hb.body.rails).toEqual(['sol-origin', 'evm-origin'])
  })
})

describe('the xchain.evm-origin flow switched off', () => {
  it('build and submit answer FLOW_DISABLED and capabilities say so', async () => {
    const off = await startTestDaemon({ file: { flows: { 'xchain.evm-origin': false } } })
    try {
      const key = await off.partnerKey()
      const post = (path: string, body: unknown) =>
        off.raw(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(body),
        })
      const b = await post('/api/xchain/evm-origin/open/build', {
        user: privateKeyToAccount(generatePrivateKey()).address,
        inSym: TOKEN_A,
        outSym: TOKEN_A,
        uiAmount: '1',
        recipientSol: Keypair.generate().publicKey.toBase58(),
      })
      expect([b.status, b.body.code]).toEqual([403, 'FLOW_DISABLED'])
      const sub = await post('/api/xchain/evm-origin/open/submit', {
        orderId: `0x${'ab'.repeat(32)}`,
        orderSignature: `0x${'11'.repeat(65)}`,
      })
      expect([sub.status, sub.body.code]).toEqual([403, 'FLOW_DISABLED'])
      expect((await off.call('/api/capabilities')).flows['xchain.evm-origin'].enabled).toBe(false)
    } finally {
      await off.close()
    }
  })
})
