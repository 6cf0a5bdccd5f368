import pino from 'pino'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outboxStore } from '../daemon/chains/evm/outbox.js'
import { replayOutbox } from '../daemon/chains/evm/outbox-replay.js'
import { confirmTransaction } from '../daemon/swap/confirm.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testDialect } from './helpers/store.js'
import { newUser, snapshot } from './helpers/swap-users.js'
import { eip3009Body, evmPayer, localBase, randomAddress, requirements, settle } from './helpers/x402.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
  // The facilitator's one-time executor delegation happens on first use: done before any snapshot.
  const payer = await evmPayer(d, ['USDC'], '1')
  expect(
    (
      await settle(
        d,
        await eip3009Body(
          d,
          payer,
          requirements(d, { symbol: 'USDC', amount: '1', payTo: randomAddress(), method: 'eip3009' }),
        ),
      )
    ).body.success,
  ).toBe(true)
})
afterAll(async () => d?.close())

const log = pino({ level: 'silent' })
const anvil = <T = any>(method: string, params: unknown[] = []) =>
  d.services.base.client.request({ method, params } as never) as Promise<T>
const receipt = (hash: string) => anvil<{ status: Hex } | null>('eth_getTransactionReceipt', [hash])
/** The chain forgets everything since `id`, as a crash that lost anvil's last state or a reorg does. */
const rollBack = (id: string) => anvil('evm_revert', [id])
/**
 * A swap is answered once the node accepted it, before anvil's automine has put it in a block: a
 * revert in that window leaves it in the pool and it is mined onto the reverted chain (about 1 in 20
 * tries here), so the chain did not lose it. A lost transaction is one the chain had mined.
 */
const mined = async (hash: Hex) => {
  await d.services.base.client.waitForTransactionReceipt({ hash, pollingInterval: 10 })
}
/** Another transaction of `key` takes the next nonce, so a lost one of the same nonce can never land. */
async function takeNextNonce(key: Hex) {
  const account = privateKeyToAccount(key)
  const chain = d.services.base
  const nonce = await chain.client.getTransactionCount({ address: account.address, blockTag: 'pending' })
  const fees = await chain.client.estimateFeesPerGas()
  const raw = await account.signTransaction({
    chainId: chain.chainId,
    type: 'eip1559',
    to: account.address,
    value: 0n,
    gas: 21_000n,
    nonce,
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  })
  await mined(await anvil<Hex>('eth_sendRawTransaction', [raw]))
}
const reconcile = async () => {
  const replayed = await replayOutbox(outboxStore(d.services.store), d.services.evm, log)
  await d.services.facilitator.reconcile({ replayed })
  return replayed
}

describe(`the transaction outbox (${testDialect()})`, () => {
  it("holds the facilitator's executor delegation (EIP-7702) and the faucet's mints, each before its broadcast, in nonce order", async () => {
    const rows = await d.services.store.db
      .selectFrom('tx_outbox')
      .selectAll()
      .where('network', '=', localBase(d).chain.key)
      .orderBy('nonce')
      .execute()
    const delegation = rows.find((r) => r.purpose === 'executor-delegation')
    expect(delegation, JSON.stringify(rows.map((r) => [r.purpose, Number(r.nonce)]))).toMatchObject({
      sender: d.services.accounts.facilitator.toLowerCase(),
    })
    expect((await receipt(delegation!.hash))?.status).toBe('0x1')
    // It took the key's first nonce used here; every settlement came after it.
    const facilitatorRows = rows.filter((r) => r.sender === d.services.accounts.facilitator.toLowerCase())
    expect(
      facilitatorRows
        .filter((r) => r.purpose === 'settlement')
        .every((r) => Number(r.nonce) > Number(delegation!.nonce)),
    ).toBe(true)
    const mints = rows.filter((r) => r.purpose === 'faucet')
    expect(mints.length).toBeGreaterThan(0)
    for (const m of mints) expect((await receipt(m.hash))?.status).toBe('0x1')
  })

  it('records every settlement before broadcast; one the chain lost lands again from its signed bytes', async () => {
    const payer = await evmPayer(d, ['USDC'], '10')
    const seller = randomAddress()
    const r = requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
    const body = await eip3009Body(d, payer, r)
    const snap = await anvil<string>('evm_snapshot')
    const first = await settle(d, body)
    expect(first.body.success).toBe(true)
    const row = await outboxStore(d.services.store).get(first.body.transaction)
    expect(row).toMatchObject({
      purpose: 'settlement',
      network: localBase(d).chain.key,
      sender: d.services.accounts.facilitator.toLowerCase(),
    })
    await rollBack(snap)
    expect(await receipt(first.body.transaction)).toBeNull()
    // Before reconciliation: no duplicate_settlement for a transaction the chain does not have.
    const early = await settle(d, body)
    expect(early).toMatchObject({
      status: 502,
      body: { errorReason: 'settlement_pending', transaction: first.body.transaction },
    })
    expect(early.body.success).toBe(false)

    // Broadcast again but not mined yet (a real chain's block time; anvil's automine answers the
    // broadcast before mining too): undecided, so the payment is pending again, never failed.
    await anvil('evm_setAutomine', [false])
    try {
      const replayed = await reconcile()
      expect([...replayed.rebroadcast]).toContain(first.body.transaction.toLowerCase())
      expect(await receipt(first.body.transaction)).toBeNull()
      expect(await d.services.facilitator.statusOfTransaction(first.body.transaction)).toMatchObject({
        payments: [{ status: 'pending' }],
      })
    } finally {
      await anvil('evm_setAutomine', [true])
    }
    await anvil('evm_mine')
    expect((await receipt(first.body.transaction))?.status).toBe('0x1')
    expect(await localBase(d).balance('USDC', seller)).toBe(BigInt(r.amount))
    const again = await settle(d, body)
    expect(again).toMatchObject({
      status: 409,
      body: { errorReason: 'duplicate_settlement', transaction: first.body.transaction },
    })
  })

  it('fails a lost settlement whose nonce another transaction took, so the same payload settles again, once', async () => {
    const payer = await evmPayer(d, ['USDC'], '10')
    const seller = randomAddress()
    const r = requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' })
    const body = await eip3009Body(d, payer, r)
    const snap = await anvil<string>('evm_snapshot')
    const first = await settle(d, body)
    expect(first.body.success).toBe(true)
    await rollBack(snap)
    await takeNextNonce(d.services.keys.facilitator)

    const replayed = await reconcile()
    expect([...replayed.failed]).toContain(first.body.transaction.toLowerCase())
    expect(await outboxStore(d.services.store).get(first.body.transaction)).toMatchObject({ state: 'failed' })
    expect(await localBase(d).balance('USDC', seller)).toBe(0n)
    const retry = await settle(d, body)
    expect(retry.body.success, JSON.stringify(retry.body)).toBe(true)
    expect((await receipt(retry.body.transaction))?.status).toBe('0x1')
    expect(await settle(d, body)).toMatchObject({
      status: 409,
      body: { errorReason: 'duplicate_settlement', transaction: retry.body.transaction },
    })
    expect(await localBase(d).balance('USDC', seller)).toBe(BigInt(r.amount))
  })

  it("concurrent settles of one payment: every duplicate names the first settlement's transaction", async () => {
    const payer = await evmPayer(d, ['USDC'], '10')
    const seller = randomAddress()
    const body = await eip3009Body(
      d,
      payer,
      requirements(d, { symbol: 'USDC', amount: '1', payTo: seller, method: 'eip3009' }),
    )
    const answers = await Promise.all(Array.from({ length: 6 }, () => settle(d, body)))
    const won = answers.filter((a) => a.body.success)
    expect(won).toHaveLength(1)
    const tx = won[0]!.body.transaction
    expect(tx).toMatch(/^0x[0-9a-f]{64}$/)
    for (const a of answers.filter((x) => !x.body.success)) {
      expect(a).toMatchObject({ status: 409, body: { errorReason: 'duplicate_settlement', transaction: tx } })
    }
  })

  it('a relayed swap the chain lost: confirm says pending, then included after replay; dropped when its nonce was taken', async () => {
    const apiKey = await d.partnerKey()
    const outbox = outboxStore(d.services.store)
    const chain = d.services.base

    const lands = await newUser(d, apiKey, { USDC: '20' })
    const before = await snapshot(d, { user: lands.address })
    let snap = await anvil<string>('evm_snapshot')
    const swap = await lands.parx.swap({ in: 'USDC', out: 'PUSD', amount: '5' })
    expect(await outbox.get(swap.hash)).toMatchObject({ purpose: 'swap', state: 'sent' })
    await mined(swap.hash as Hex)
    await rollBack(snap)
    // As a restarted daemon answers (no in-memory record of the transaction): pending, never unknown.
    expect(await confirmTransaction(chain, swap.hash, undefined, outbox)).toMatchObject({ status: 'pending' })
    const replayed = await reconcile()
    expect([...replayed.rebroadcast]).toContain(swap.hash.toLowerCase())
    // Broadcast again: anvil answers before it mines, so the receipt may come a moment later.
    await mined(swap.hash as Hex)
    expect(await confirmTransaction(chain, swap.hash, undefined, outbox)).toMatchObject({
      status: 'included',
      success: true,
    })
    const after = await snapshot(d, { user: lands.address })
    expect(before[`USDC user`]! - after[`USDC user`]!).toBe(5_000_000n)

    const lost = await newUser(d, apiKey, { USDC: '20' })
    const held = await snapshot(d, { user: lost.address })
    snap = await anvil<string>('evm_snapshot')
    const gone = await lost.parx.swap({ in: 'USDC', out: 'PUSD', amount: '5' })
    await mined(gone.hash as Hex)
    await rollBack(snap)
    await takeNextNonce(d.services.keys.solver)
    await reconcile()
    // The nonce is another transaction's now: the lost swap can never land, and nothing moved (the
    // user still holds the input and may re-sign the same order nonce). It was once seen `included`
    // on PostgreSQL: the swap had not been mined when the test reverted, so it survived the revert.
    expect(await confirmTransaction(chain, gone.hash, undefined, outbox)).toMatchObject({
      status: 'dropped',
      resubmitted: false,
    })
    expect(await snapshot(d, { user: lost.address })).toEqual(held)
  })
})
