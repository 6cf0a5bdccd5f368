import { type Hex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { useAnvilChain } from '../../../test/helpers/anvil-chain.js'
import type { Outbox, OutboxEntry } from './outbox.js'
import { InclusionUnknown, txSender } from './tx-sender.js'

/** An outbox that keeps rows in memory and can be told to fail (the store unreachable). */
function memoryOutbox() {
  const rows: OutboxEntry[] = []
  let failing = false
  const outbox = {
    record: async (e: OutboxEntry) => {
      if (failing) throw new Error('store unreachable')
      rows.push(e)
    },
  } as unknown as Outbox
  return { outbox, rows, fail: (on: boolean) => (failing = on) }
}

describe('txSender.sendAndWait on an embedded chain', () => {
  const anvil = useAnvilChain()
  const { rpc } = anvil
  const to = privateKeyToAccount(generatePrivateKey()).address
  const transfer = { to, data: '0x' as Hex, value: 1n, gas: 21_000n }

  it('answers the receipt of a mined transaction, its row written before the node saw it', async () => {
    const { outbox, rows } = memoryOutbox()
    const sender = txSender(anvil.chain, await anvil.fundedKey(), { outbox })
    const { hash, receipt } = await sender.sendAndWait(transfer, 5_000)
    expect(receipt.status).toBe('success')
    expect(receipt.transactionHash).toBe(hash)
    expect(rows.map((r) => r.hash)).toEqual([hash])
    expect(keccak256(rows[0]!.raw as Hex)).toBe(hash)
  })

  it('with mining paused: InclusionUnknown after the wait (not a refusal), the nonce stays spent, and it lands once mining resumes', async () => {
    const sender = txSender(anvil.chain, await anvil.fundedKey())
    await rpc('evm_setAutomine', [false])
    try {
      const started = Date.now()
      const err = await sender.sendAndWait(transfer, 300).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(InclusionUnknown)
      expect(err).toMatchObject({ code: 'RELAY_FAILED' })
      expect(Date.now() - started).toBeLessThan(5_000)
      const pendingHash = (err as InclusionUnknown).hash
      expect(await rpc('eth_getTransactionByHash', [pendingHash])).toMatchObject({ nonce: '0x0' })
      // The next transaction takes the next nonce: the first one still holds its own.
      const next = await sender.send(transfer)
      expect(await rpc('eth_getTransactionByHash', [next])).toMatchObject({ nonce: '0x1' })
      await rpc('evm_setAutomine', [true])
      await rpc('evm_mine')
      expect((await sender.wait(pendingHash, 5_000)).status).toBe('success')
      expect((await sender.wait(next, 5_000)).status).toBe('success')
    } finally {
      await rpc('evm_setAutomine', [true])
    }
  })

  it('a refusal is RELAY_FAILED, not InclusionUnknown, and its nonce is used by the next transaction', async () => {
    const sender = txSender(anvil.chain, await anvil.fundedKey())
    const err = await sender.sendAndWait({ ...transfer, gas: 10n ** 9n }, 5_000).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ code: 'RELAY_FAILED' })
    expect(err).not.toBeInstanceOf(InclusionUnknown)
    const { receipt } = await sender.sendAndWait(transfer, 5_000)
    expect(await rpc('eth_getTransactionByHash', [receipt.transactionHash])).toMatchObject({ nonce: '0x0' })
  })

  it('a row that cannot be written sends nothing and gives the nonce back', async () => {
    const { outbox, rows, fail } = memoryOutbox()
    const sender = txSender(anvil.chain, await anvil.fundedKey(), { outbox })
    fail(true)
    await expect(sender.sendAndWait(transfer, 5_000)).rejects.toThrow('store unreachable')
    fail(false)
    const { hash, receipt } = await sender.sendAndWait(transfer, 5_000)
    expect(receipt.status).toBe('success')
    expect(await rpc('eth_getTransactionByHash', [hash])).toMatchObject({ nonce: '0x0' })
    expect(rows.map((r) => r.nonce)).toEqual([0])
  })
})
