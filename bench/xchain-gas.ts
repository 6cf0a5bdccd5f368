import { type Address, type Hex, maxUint256, parseUnits, type TransactionReceipt } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import * as OutputSettler from '../contracts/evm/artifacts/OutputSettler.js'
import * as PermitToken from '../contracts/evm/artifacts/PermitToken.js'
import * as RfqSwap from '../contracts/evm/artifacts/RfqSwap.js'
import { type Domain, signOrder, signPermit } from '../contracts/evm/testing/sign.js'
import { mint } from '../contracts/evm/testing/tokens.js'
import { setupXchain, testKey, type XchainFixture } from '../contracts/evm/testing/xchain.js'
import { type EvmOrder, evmParty } from '../contracts/xchain/statement.js'
import { report } from './lib.js'

/**
 * Gas of each cross-chain EVM transaction next to the RfqSwap router's `swap`, all on one anvil and
 * measured the same way: gasUsed of the mined receipt, in the steady state (the user, the solver and
 * the contracts already hold balances and nonces, as on a chain in use), each after one warm-up of
 * the same call. The first-time figures of a brand-new user (nonces and balances written from
 * zero) are reported beside them for `swap` and `openFor`. Target: every figure within 2x of swap.
 */
export async function benchXchainGas(): Promise<void> {
  const f = await setupXchain()
  try {
    const { user, solver, other } = f.tc.accounts
    const router = await f.tc.deploy(RfqSwap.abi, RfqSwap.bytecode, [solver.address])
    await f.tc.send(solver, {
      address: f.pusd.address,
      abi: PermitToken.abi,
      functionName: 'approve',
      args: [router, maxUint256],
    })
    const swap = routerSwap(f, router)

    const gas = async (p: Promise<TransactionReceipt>) => Number((await p).gasUsed)
    const twice = async (run: () => Promise<TransactionReceipt>) => {
      await run()
      return gas(run())
    }

    const swapFirst = await gas(swap(testKey('bench fresh swapper')))
    const swapGas = await twice(() => swap(user))

    const opened: EvmOrder[] = []
    const open = await twice(async () => {
      const order = await f.makeOrder()
      opened.push(order)
      return f.openAsUser(order)
    })
    const openFor = (who: PrivateKeyAccount) => async () => {
      const order = await f.makeOrder({ user: who.address })
      opened.push(order)
      return f.tc.send(other, f.calls.openFor(order, await f.signOrder(who, order), await f.permitFor(who, order)))
    }
    const fresh = testKey('bench fresh opener')
    await mint(f.tc, f.usdc, fresh.address, parseUnits('100', 6))
    const openForFirst = await gas(openFor(fresh)())
    const openForGas = await twice(openFor(user))

    const toClaim = opened.splice(0, 2)
    const claim = await twice(async () => {
      const order = toClaim.shift()!
      return f.tc.send(other, f.calls.claim(order, evmParty(solver.address), await f.quorum(order)))
    })
    await f.mineAt(Math.max(...opened.map((o) => o.expires)) + 1)
    const toRefund = opened.filter((o) => o.user === user.address).slice(0, 2)
    const refund = await twice(() => f.tc.send(other, f.calls.refund(toRefund.shift()!)))

    const now = await f.tc.latestTimestamp()
    let n = 0
    const fill = await twice(() =>
      f.tc.send(solver, {
        address: f.settler,
        abi: OutputSettler.abi,
        functionName: 'fill',
        args: [
          `0x${(++n).toString(16).padStart(64, '0')}`,
          f.pusd.address,
          parseUnits('10', 18),
          user.address,
          `0x${'5a'.repeat(32)}`,
          now + 600n,
        ],
      }),
    )

    const ratio = (g: number) => Math.round((g / swapGas) * 100) / 100
    report('xchain.gas.swap', swapGas, 'gas', { contract: 'RfqSwap.swap', note: 'reference' })
    report('xchain.gas.swap.first', swapFirst, 'gas', { contract: 'RfqSwap.swap', note: 'brand-new user' })
    for (const [name, g, contract] of [
      ['open', open, 'SourceEscrow.open'],
      ['openFor', openForGas, 'SourceEscrow.openFor'],
      ['claim', claim, 'SourceEscrow.claim (2 of 3)'],
      ['refund', refund, 'SourceEscrow.refund'],
      ['fill', fill, 'OutputSettler.fill'],
    ] as const) {
      report(`xchain.gas.${name}`, g, 'gas', { contract, ratioToSwap: ratio(g), target: '<= 2' })
    }
    report('xchain.gas.openFor.first', openForFirst, 'gas', {
      contract: 'SourceEscrow.openFor',
      note: 'brand-new user',
      ratioToSwapFirst: Math.round((openForFirst / swapFirst) * 100) / 100,
    })
  } finally {
    await f.tc.stop()
  }
}

/** One router swap of 10 USDC for 10 PUSD by `who` (funded on first use), signed as a wallet would. */
function routerSwap(f: XchainFixture, router: Address) {
  const domain: Domain = { name: 'ParxRfqSwap', version: '1', chainId: f.chainId, verifyingContract: router }
  const funded = new Set<Address>()
  return async (who: PrivateKeyAccount): Promise<TransactionReceipt> => {
    if (!funded.has(who.address)) {
      await mint(f.tc, f.usdc, who.address, parseUnits('100', 6))
      funded.add(who.address)
    }
    const read = (address: Address, abi: typeof RfqSwap.abi | typeof PermitToken.abi) =>
      f.tc.client.readContract({
        address,
        abi,
        functionName: 'nonces',
        args: [who.address],
      } as never) as Promise<bigint>
    const deadline = (await f.tc.latestTimestamp()) + 600n
    const order = {
      user: who.address,
      inputToken: f.usdc.address,
      inputAmount: 10_000_000n,
      outputToken: f.pusd.address,
      minOutputAmount: parseUnits('10', 18),
      solver: f.tc.accounts.solver.address,
      deadline,
      nonce: await read(router, RfqSwap.abi),
    }
    const orderSig: Hex = await signOrder(who, domain, order)
    const { v, r, s } = await signPermit(who, f.usdc.domain, {
      spender: router,
      value: order.inputAmount,
      nonce: await read(f.usdc.address, PermitToken.abi),
      deadline,
    })
    return f.tc.send(f.tc.accounts.solver, {
      address: router,
      abi: RfqSwap.abi,
      functionName: 'swap',
      args: [order, orderSig, v, r, s],
    })
  }
}
