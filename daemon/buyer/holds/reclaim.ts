import { type Address, encodeFunctionData, type Hex } from 'viem'
import { authCaptureDeployment, authCaptureEscrowAbi } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import type { PaymentInfo } from '../../../src/sdk/x402/evm/auth-capture/payment-info.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import type { AgentHoldRow } from './store.js'

/** The hold's PaymentInfo back from the store's JSON. */
export function storedPaymentInfo(h: AgentHoldRow): PaymentInfo {
  const o = JSON.parse(h.payment_info) as Record<string, string | number>
  return { ...(o as unknown as PaymentInfo), maxAmount: BigInt(o.maxAmount!), salt: BigInt(o.salt!) }
}

/**
 * Takes back a hold its seller left uncaptured past the capture deadline: the escrow's
 * `reclaim(paymentInfo)`, which only the payer may call, so it goes out from the agent's own
 * address (`call`: a gasless user operation of its account on Base, as a send: daemon/platform/
 * send.ts callFromAgent). Simulated from the agent's address first, so a hold captured or voided
 * meanwhile costs nothing (null). Returns the transaction.
 */
export async function reclaimHold(p: {
  chain: EvmChain
  hold: AgentHoldRow
  payer: Address
  call(to: Address, data: Hex): Promise<{ transaction: Hex }>
}): Promise<Hex | null> {
  const d = authCaptureDeployment(p.hold.escrow)!
  const info = storedPaymentInfo(p.hold)
  const request = {
    address: d.escrow,
    abi: authCaptureEscrowAbi[d.version],
    functionName: 'reclaim',
    args: [info],
    account: p.payer,
  } as const
  try {
    await p.chain.client.simulateContract(request as never)
  } catch {
    return null
  }
  const { transaction } = await p.call(d.escrow, encodeFunctionData(request as never))
  return transaction
}
