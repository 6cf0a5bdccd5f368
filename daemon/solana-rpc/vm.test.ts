import { Keypair, SystemProgram, Transaction } from '@solana/web3.js'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Vm } from './vm.js'
import { decodeWireTransaction } from './wire-transaction.js'

const SYSTEM = '11111111111111111111111111111111'
const BLOCKHASH = '11111111111111111111111111111112'
const funded = (lamports: bigint) => ({ lamports, owner: SYSTEM, data: new Uint8Array(), executable: false })

function transfer(from: Keypair, to: Keypair, lamports: number) {
  const tx = new Transaction({ feePayer: from.publicKey, blockhash: BLOCKHASH, lastValidBlockHeight: 0 }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to.publicKey, lamports }),
  )
  tx.sign(from)
  return decodeWireTransaction(tx.serialize())
}

describe('Vm account reads', () => {
  afterEach(() => vi.restoreAllMocks())

  it('reads an account from litesvm once, and again only after something may have written it', () => {
    const vm = new Vm()
    // The reads reach litesvm through its native binding (vm.ts: Native).
    const native = (vm as unknown as { native: { getAccount(pubkey: Uint8Array): unknown } }).native
    const reads = vi.spyOn(native, 'getAccount')
    const [alice, bob] = [Keypair.generate(), Keypair.generate()]
    const a = alice.publicKey.toBase58()
    const b = bob.publicKey.toBase58()
    vm.setAccount(a, funded(10_000_000_000n))
    vm.setAccount(b, funded(5_000_000_000n))

    expect(vm.getAccount(a)?.lamports).toBe(10_000_000_000n)
    expect(vm.getAccount(a)?.lamports).toBe(10_000_000_000n)
    expect(reads).toHaveBeenCalledTimes(1)

    // A transaction's writable keys are read again; the program it called (read-only) is not.
    expect(vm.getAccount(SYSTEM)).not.toBeNull()
    const before = reads.mock.calls.length
    expect(vm.send(transfer(alice, bob, 1_000_000_000)).err).toBeNull()
    expect(vm.getAccount(b)?.lamports).toBe(6_000_000_000n)
    expect(vm.getAccount(a)!.lamports).toBeLessThan(9_000_000_000n)
    vm.getAccount(SYSTEM)
    expect(reads.mock.calls.length - before).toBe(2)

    // A simulation changes nothing; setAccount and the clock drop what they may have changed.
    vm.simulate(transfer(alice, bob, 1), true, { post: false })
    expect(vm.getAccount(b)?.lamports).toBe(6_000_000_000n)
    vm.setAccount(b, null)
    expect(vm.getAccount(b)).toBeNull()
    vm.setAccount(b, funded(7n))
    expect(vm.getAccount(b)?.lamports).toBe(7n)
    const clock = 'SysvarC1ock11111111111111111111111111111111'
    const slotBefore = vm.getAccount(clock)
    const clockReads = reads.mock.calls.length
    vm.setClock(5, 1_700_000_000, 1_700_000_000)
    vm.getAccount(b)
    expect(vm.getAccount(clock)).not.toEqual(slotBefore)
    expect(reads.mock.calls.length - clockReads).toBe(1)
  })

  it('leaves the accounts a simulation would write out unless asked for them', () => {
    const vm = new Vm()
    const [alice, bob] = [Keypair.generate(), Keypair.generate()]
    vm.setAccount(alice.publicKey.toBase58(), funded(10_000_000_000n))
    expect(vm.simulate(transfer(alice, bob, 1_000_000_000), true, { post: false }).post.size).toBe(0)
    const post = vm.simulate(transfer(alice, bob, 1_000_000_000), true).post
    expect(post.get(bob.publicKey.toBase58())?.lamports).toBe(1_000_000_000n)
  })
})
