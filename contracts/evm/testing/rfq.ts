import { type Address, type Hex, maxUint256, parseUnits } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import { TOKEN_A, USDC } from '../../../src/networks/registry.js'
import * as PermitToken from '../artifacts/PermitToken.js'
import * as RfqSwap from '../artifacts/RfqSwap.js'
import { type Call, startTestChain } from './chain.js'
import { type Domain, type RfqOrder, signOrder, signPermit } from './sign.js'
import { balanceOf, type DeployedToken, deployToken, mint } from './tokens.js'

export type PrepareParameters = {
  input: DeployedToken
  output: DeployedToken
  inputAmount: bigint
  minOutputAmount: bigint
  /** Signs the order; the order's user unless a test wants a forged signature. */
  orderSigner?: PrivateKeyAccount
  /** Domain of the input permit; the input token's own unless a test wants a wrong one. */
  permitDomain?: Domain
  overrides?: Partial<RfqOrder>
}

export type PreparedSwap = { order: RfqOrder; orderSig: Hex; v: number; r: Hex; s: Hex }

/**
 * A chain with USDC and PUSD deployed as on local-base, the router, a user holding 1 000 of each,
 * and a solver holding 1 000 000 of each with unlimited router allowance.
 */
export async function setupRfq() {
  const tc = await startTestChain()
  const { user, solver } = tc.accounts
  const usdc = await deployToken(tc, USDC)
  const pusd = await deployToken(tc, TOKEN_A)
  const router = await tc.deploy(RfqSwap.abi, RfqSwap.bytecode, [solver.address])
  const routerDomain: Domain = { name: 'ParxRfqSwap', version: '1', chainId: tc.chain.id, verifyingContract: router }
  for (const t of [usdc, pusd]) {
    await mint(tc, t, user.address, parseUnits('1000', t.decimals))
    await mint(tc, t, solver.address, parseUnits('1000000', t.decimals))
    await tc.send(solver, {
      address: t.address,
      abi: PermitToken.abi,
      functionName: 'approve',
      args: [router, maxUint256],
    })
  }

  const routerNonce = (who: Address) =>
    tc.client.readContract({ address: router, abi: RfqSwap.abi, functionName: 'nonces', args: [who] })
  const permitNonce = (t: DeployedToken, who: Address) =>
    tc.client.readContract({ address: t.address, abi: PermitToken.abi, functionName: 'nonces', args: [who] })

  /**
   * Signs an order and its input permit exactly as a wallet following docs/swap-api.md "What the
   * wallet signs" would.
   */
  async function prepare(p: PrepareParameters): Promise<PreparedSwap> {
    const deadline = (await tc.latestTimestamp()) + 3600n
    const orderUser = p.overrides?.user ?? user.address
    const order: RfqOrder = {
      user: user.address,
      inputToken: p.input.address,
      inputAmount: p.inputAmount,
      outputToken: p.output.address,
      minOutputAmount: p.minOutputAmount,
      solver: solver.address,
      deadline,
      nonce: await routerNonce(orderUser),
      ...p.overrides,
    }
    const orderSig = await signOrder(p.orderSigner ?? user, routerDomain, order)
    const { v, r, s } = await signPermit(user, p.permitDomain ?? p.input.domain, {
      spender: router,
      value: order.inputAmount,
      nonce: await permitNonce(p.input, user.address),
      deadline: order.deadline,
    })
    return { order, orderSig, v, r, s }
  }

  function swapCall(x: PreparedSwap, pair?: Address): Call {
    const args = [x.order, x.orderSig, x.v, x.r, x.s]
    return pair
      ? { address: router, abi: RfqSwap.abi, functionName: 'swapViaPool', args: [...args, pair] }
      : { address: router, abi: RfqSwap.abi, functionName: 'swap', args }
  }

  /** Everything a rejected swap must leave untouched. */
  async function snapshot(): Promise<Record<string, bigint>> {
    const out: Record<string, bigint> = {}
    for (const [who, a] of Object.entries(tc.accounts)) {
      out[`router nonce ${who}`] = await routerNonce(a.address)
      for (const t of [usdc, pusd]) {
        out[`${t.symbol} ${who}`] = await balanceOf(tc, t, a.address)
        out[`${t.symbol} permit nonce ${who}`] = await permitNonce(t, a.address)
      }
    }
    return out
  }

  return { tc, usdc, pusd, router, routerDomain, routerNonce, permitNonce, prepare, swapCall, snapshot }
}

export type RfqFixture = Awaited<ReturnType<typeof setupRfq>>
