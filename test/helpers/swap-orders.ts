import type { Hex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import {
  type Nonces,
  orderDomain,
  permitDomain,
  permitMessage,
  permitTypes,
  type RfqOrder,
  rfqOrderTypes,
  type SwapRequestBody,
  splitSignature,
  type TypedDomain,
  toWireOrder,
} from '../../src/sdk/swap/index.js'
import { toBaseUnits } from '../../src/sdk/units.js'
import type { TestDaemon } from './daemon.js'

export type BuildParameters = {
  in: string
  out: string
  amount: string
  /** Fields to sign differently from what a correct client would. */
  order?: Partial<RfqOrder>
  /** Signs the order instead of the user (a forged signature). */
  orderSigner?: PrivateKeyAccount
  /** Domain of the permit instead of the input token's own. */
  permitDomain?: TypedDomain
}

/**
 * Builds and signs a request body by hand, from the same SDK primitives, so a test can get exactly
 * one thing wrong at a time. Without overrides it is what the SDK's prepare() would send.
 */
export async function buildBody(
  d: TestDaemon,
  apiKey: string,
  user: PrivateKeyAccount,
  p: BuildParameters,
): Promise<SwapRequestBody> {
  const headers = { 'x-api-key': apiKey }
  const [info, nonces] = await Promise.all([
    d.call('/api/base/info'),
    d.call<Nonces>('/api/base/nonces', { query: { owner: user.address }, headers }),
  ])
  const token = (sym: string) => (sym === 'USDC' ? { addr: info.usdc, dec: info.usdcDec } : info.out[sym])
  const input = token(p.in)
  const output = token(p.out)
  const inputAmount = toBaseUnits(p.amount, input.dec)
  const scale = (x: bigint) =>
    output.dec >= input.dec ? x * 10n ** BigInt(output.dec - input.dec) : x / 10n ** BigInt(input.dec - output.dec)
  const order: RfqOrder = {
    user: user.address,
    inputToken: input.addr,
    inputAmount,
    outputToken: output.addr,
    minOutputAmount: scale(inputAmount),
    solver: info.solver,
    deadline: BigInt(nonces.chainTime + 600),
    nonce: BigInt(nonces.router),
    ...p.order,
  }
  const orderSig = await (p.orderSigner ?? user).signTypedData({
    domain: orderDomain(info),
    types: rfqOrderTypes,
    primaryType: 'RfqOrder',
    message: order,
  })
  const permitSig: Hex = await user.signTypedData({
    domain: p.permitDomain ?? permitDomain(info, order.inputToken),
    types: permitTypes,
    primaryType: 'Permit',
    message: permitMessage(order, info.router, BigInt(nonces.permit[p.in]!)),
  })
  return {
    user: user.address,
    uiAmount: p.amount,
    in: p.in,
    out: p.out,
    order: toWireOrder(order),
    orderSig,
    ...splitSignature(permitSig),
  }
}
