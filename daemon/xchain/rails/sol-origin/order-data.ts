import { PublicKey } from '@solana/web3.js'
import type { SolOrder } from '../../../../contracts/xchain/statement.js'

/**
 * The sol-origin order as xchain_orders.order_data keeps it: every field of SolOrder, plus the user's token account.
 */
export type SolOrderData = {
  program: string
  user: string
  inputMint: string
  inputAmount: string
  destChain: `0x${string}`
  outputToken: `0x${string}`
  outputAmount: string
  recipient: `0x${string}`
  fillDeadline: string
  expires: string
  nonce: string
  userToken: string
}

export function encodeSolOrder(o: SolOrder, userToken: PublicKey): string {
  const d: SolOrderData = {
    program: new PublicKey(o.program).toBase58(),
    user: new PublicKey(o.user).toBase58(),
    inputMint: new PublicKey(o.inputMint).toBase58(),
    inputAmount: o.inputAmount.toString(),
    destChain: o.destChain as `0x${string}`,
    outputToken: o.outputToken as `0x${string}`,
    outputAmount: o.outputAmount.toString(),
    recipient: o.recipient as `0x${string}`,
    fillDeadline: o.fillDeadline.toString(),
    expires: o.expires.toString(),
    nonce: o.nonce.toString(),
    userToken: userToken.toBase58(),
  }
  return JSON.stringify(d)
}

export function decodeSolOrder(json: string): { order: SolOrder; userToken: PublicKey } {
  const d = JSON.parse(json) as SolOrderData
  return {
    order: {
      program: new PublicKey(d.program).toBytes(),
      user: new PublicKey(d.user).toBytes(),
      inputMint: new PublicKey(d.inputMint).toBytes(),
      inputAmount: BigInt(d.inputAmount),
      destChain: d.destChain,
      outputToken: d.outputToken,
      outputAmount: BigInt(d.outputAmount),
      recipient: d.recipient,
      fillDeadline: BigInt(d.fillDeadline),
      expires: BigInt(d.expires),
      nonce: BigInt(d.nonce),
    },
    userToken: new PublicKey(d.userToken),
  }
}
