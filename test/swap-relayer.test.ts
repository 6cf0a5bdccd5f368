import { type Address, createWalletClient, encodeFunctionData, erc20Abi, type Hex, http } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import type { SwapAccepted } from '../src/sdk/swap/index.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { testDialect } from './helpers/store.js'
import { moved, newUser, type SwapUser, snapshot } from './helpers/swap-users.js'

let d: TestDaemon
let key: string
beforeAll(async () => {
  d = await startTestDaemon()
  key = await d.partnerKey()
})
afterAll(async () => d?.close())

const anvil = (method: string, params: unknown[] = []) =>
  d.services.base.client.request({ method: method as never, params: params as never })
const solver = () => d.services.accounts.solver

describe('50 concurrent swaps from 50 users', () => {
  it('all land, on 50 consecutive solver nonces, each moving exactly its own amounts', async () => {
    // Entry buys, par swaps both ways and redemptions, interleaved.
    const kinds = [
      { in: USDC, out: TOKEN_A, fund: USDC },
      { in: TOKEN_A, out: TOKEN_B, fund: TOKEN_A },
      { in: TOKEN_B, out: TOKEN_A, fund: TOKEN_B },
      { in: TOKEN_A, out: USDC, fund: TOKEN_A },
    ]
    const users: Array<SwapUser & { kind: (typeof kinds)[number]; amount: string }> = []
    for (let i = 0; i < 50; i++) {
      const kind = kinds[i % kinds.length]!
      const amount = `${i + 1}.5`
      users.push({ ...(await newUser(d, key, { [kind.fund]: amount })), kind, amount })
    }
    const holders = Object.fromEntries(users.map((u, i) => [`u${i}`, u.address]))
    const before = await snapshot(d, { ...holders, solver: solver() })

    const accepted = (await Promise.all(
      users.map((u) =>
        u.kind.out === USDC
          ? u.parx.redeem({ in: u.kind.in, amount: u.amount })
          : u.parx.swap({ in: u.kind.in, out: u.kind.out, amount: u.amount }),
      ),
    )) as SwapAccepted[]
    expect(new Set(accepted.map((a) => a.hash)).size).toBe(50)
    const receipts = await Promise.all(accepted.map((a, i) => users[i]!.parx.waitForInclusion(a.hash)))
    expect(receipts.every((r) => r.status === 'included')).toBe(true)

    const txs = await Promise.all(accepted.map((a) => d.services.base.client.getTransaction({ hash: a.hash })))
    const nonces = txs.map((t) => t.nonce).sort((a, b) => a - b)
    expect(nonces).toEqual(Array.from({ length: 50 }, (_, i) => nonces[0]! + i))
    expect(txs.every((t) => t.from.toLowerCase() === solver().toLowerCase())).toBe(true)

    const after = await snapshot(d, { ...holders, solver: solver() })
    const m = moved(before, after)
    const dec = (sym: string) => d.services.base.tokens[sym]!.decimals
    const units = (amount: string, sym: string) => BigInt(amount.replace('.', '')) * 10n ** BigInt(dec(sym) - 1)
    const solverDelta: Record<string, bigint> = {}
    users.forEach((u, i) => {
      const paid = units(u.amount, u.kind.in)
      const got = BigInt(receipts[i]!.swap!.outputAmount)
      if (u.kind.out !== USDC) expect(got).toBe(units(u.amount, u.kind.out))
      else expect(got).toBe(BigInt(accepted[i]!.minOutputAmount))
      expect(m[`${u.kind.in} u${i}`]).toBe(-paid)
      expect(m[`${u.kind.out} u${i}`]).toBe(got)
      expect(m[`router nonce u${i}`]).toBe(1n)
      expect(after[`ETH u${i}`]).toBe(0n)
      solverDelta[u.kind.in] = (solverDelta[u.kind.in] ?? 0n) + paid
      solverDelta[u.kind.out] = (solverDelta[u.kind.out] ?? 0n) - got
    })
    for (const sym of [USDC, TOKEN_A, TOKEN_B]) expect(m[`${sym} solver`] ?? 0n).toBe(solverDelta[sym])
  })
})

describe('a transaction the node refuses', () => {
  it('fails alone: the transactions signed after it still land, on no nonce gap', async () => {
    const chain = d.services.base
    const sender = d.services.sender(chain.key, 'solver')
    const usdc = chain.tokens[USDC]!
    const sinks = [1, 2, 3].map((i) => privateKeyToAccount(`0x${String(i).padStart(64, '0')}` as Hex).address)
    const transfer = (to: Address, gas = 100_000n) => ({
      to: usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 1n] }),
      gas,
    })
    const noncesBefore = await chain.client.getTransactionCount({ address: sender.address })
    // The middle one asks for more gas than a block holds: the node refuses it at the door.
    const [first, refused, last] = await Promise.allSettled([
      sender.send(transfer(sinks[0]!)),
      sender.send(transfer(sinks[1]!, 10n ** 9n)),
      sender.send(transfer(sinks[2]!)),
    ])
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'RELAY_FAILED' } })
    for (const r of [first, last]) {
      expect(r.status).toBe('fulfilled')
      expect((await sender.wait((r as PromiseFulfilledResult<Hex>).value)).status).toBe('success')
    }
    const balance = (a: Address) =>
      chain.client.readContract({ address: usdc.address, abi: erc20Abi, functionName: 'balanceOf', args: [a] })
    expect(await Promise.all(sinks.map(balance))).toEqual([1n, 0n, 1n])
    // All three were signed before the refusal came back, so the last one waited behind the
    // refused nonce, which a no-op filled: three nonces used for two transfers. With nonces taken
    // through a shared store (PostgreSQL), the last one may take its nonce only after the refusal,
    // and then reuses the refused one: two nonces. Either way no gap is left (the last one landed).
    const used = (await chain.client.getTransactionCount({ address: sender.address })) - noncesBefore
    if (testDialect() === 'sqlite') expect(used).toBe(3)
    else expect([2, 3]).toContain(used)
    // and the sender goes on
    expect((await sender.wait(await sender.send(transfer(sinks[1]!)))).status).toBe('success')
  })
})

describe('dropped and replaced relays (automine off)', () => {
  // Funded while blocks are still mined on demand; then transactions wait in the pool until evm_mine.
  let dropUser: SwapUser
  let replaceUser: SwapUser
  beforeAll(async () => {
    dropUser = await newUser(d, key, { [USDC]: '7' })
    replaceUser = await newUser(d, key, { [USDC]: '3' })
    await anvil('evm_setAutomine', [false])
  })
  afterAll(async () => {
    await anvil('evm_setAutomine', [true])
  })

  it('a dropped transaction is detected and broadcast again unchanged, then lands', async () => {
    const u = dropUser
    const before = await snapshot(d, { user: u.address })
    const { hash } = await u.parx.swap({ in: USDC, out: TOKEN_A, amount: '7' })
    expect((await u.parx.confirm(hash)).status).toBe('pending')

    await anvil('anvil_dropTransaction', [hash])
    expect(await u.parx.confirm(hash)).toMatchObject({ hash, status: 'dropped', resubmitted: true })
    expect((await u.parx.confirm(hash)).status).toBe('pending')

    await anvil('evm_mine')
    expect((await u.parx.confirm(hash)).status).toBe('included')
    expect(moved(before, await snapshot(d, { user: u.address }))).toMatchObject({
      'USDC user': -7_000_000n,
      'PUSD user': 7n * 10n ** 18n,
      'router nonce user': 1n,
    })
  })

  it('a replaced transaction is reported as such, moves nothing, and the order can be sent again', async () => {
    const u = replaceUser
    const before = await snapshot(d, { user: u.address })
    const body = await u.parx.prepare({ in: USDC, out: TOKEN_A, amount: '3' })
    const { hash } = await d.call('/api/base/swap', { body, headers: { 'x-api-key': key } })
    const tx = await d.services.base.client.getTransaction({ hash })

    // Someone else holding the solver key takes the nonce with a higher fee.
    const chain = d.services.base
    const rogue = createWalletClient({
      account: privateKeyToAccount(d.services.keys.solver),
      chain: chain.client.chain!,
      transport: http(chain.rpcUrl),
    })
    const replacement: Hex = await rogue.sendTransaction({
      to: solver(),
      value: 0n,
      nonce: tx.nonce,
      gas: 21_000n,
      maxFeePerGas: tx.maxFeePerGas! * 10n,
      maxPriorityFeePerGas: tx.maxFeePerGas! * 5n,
    })
    await anvil('evm_mine')
    expect((await chain.client.getTransactionReceipt({ hash: replacement })).status).toBe('success')
    const r = await u.parx.confirm(hash)
    expect(r).toMatchObject({ hash, status: 'replaced' })
    expect(await snapshot(d, { user: u.address })).toEqual(before)

    // The order never ran, so the same signed body is still good: it is not mistaken for a duplicate.
    const again = await d.call('/api/base/swap', { body, headers: { 'x-api-key': key } })
    await anvil('evm_mine')
    expect((await u.parx.confirm(again.hash)).status).toBe('included')
    expect(moved(before, await snapshot(d, { user: u.address }))).toMatchObject({
      'USDC user': -3_000_000n,
      'router nonce user': 1n,
    })
  })
})
