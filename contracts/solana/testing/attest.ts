import { createPrivateKey, randomBytes, sign } from 'node:crypto'
import type { Keypair, PublicKey } from '@solana/web3.js'
import { type Delivery, type SolOrder, solDeliveryMessage, solParty } from '../../xchain/statement.js'

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex')

/** An ed25519 signature by a web3.js keypair (its secret key's first 32 bytes are the seed). */
export function ed25519Sign(signer: Keypair, message: Uint8Array): Uint8Array {
  const key = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, Buffer.from(signer.secretKey.subarray(0, 32))]),
    format: 'der',
    type: 'pkcs8',
  })
  return new Uint8Array(sign(null, message, key))
}

/** The delivery an attestor would confirm for a Solana-origin order filled for `solver`. */
export function deliveryFor(order: SolOrder, orderId: `0x${string}`, solver: PublicKey): Delivery {
  return {
    orderId,
    destChain: order.destChain,
    recipient: order.recipient,
    outputToken: order.outputToken,
    amount: order.outputAmount,
    solver: solParty(solver.toBytes()),
  }
}

export function attestations(delivery: Delivery, originProgram: PublicKey, signers: Keypair[]) {
  const message = solDeliveryMessage(delivery, originProgram.toBytes())
  return {
    message,
    signed: signers.map((s) => ({ publicKey: s.publicKey.toBytes(), signature: ed25519Sign(s, message) })),
  }
}

export const randomNonce = () => randomBytes(8).readBigUInt64LE()
