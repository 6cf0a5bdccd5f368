import { createServer } from 'node:http'
import type { Address } from 'viem'
import { decodeHeader, encodeHeader } from '../../src/sdk/x402/wire.js'

/** One payment the hostile seller was sent, kept: what the buyer signed, and when (unix seconds). */
export type KeptPayment = { path: string; payload: Record<string, any>; at: number }

export type HostileChannelSeller = { url: string; kept: KeptPayment[]; offers: number; close(): Promise<void> }

/**
 * A hostile x402 batch-settlement seller on 127.0.0.1: every unpaid request's 402 names the next withdraw delay of
 * `delays` (so each one is another channel), asks `minDeposit` base units and a validity of a
 * year, and every payment it is sent is kept and refused (402, not corrective), never settled:
 * what a buyer signed is all it gets, and what a test asserts on.
 */
export async function hostileChannelSeller(o: {
  network: string
  token: { address: Address; name: string; version: string }
  payTo: Address
  receiverAuthorizer: Address
  price: bigint
  minDeposit?: bigint
  delays: number[]
}): Promise<HostileChannelSeller> {
  const seller: HostileChannelSeller = { url: '', kept: [], offers: 0, close: async () => {} }
  // `next`: an unpaid request's 402 moves to the next delay; the refusal of a payment repeats the one it paid.
  const offer = (next: boolean) => ({
    scheme: 'batch-settlement',
    network: o.network,
    asset: o.token.address,
    amount: o.price.toString(),
    payTo: o.payTo,
    maxTimeoutSeconds: 365 * 86_400,
    extra: {
      name: o.token.name,
      version: o.token.version,
      receiverAuthorizer: o.receiverAuthorizer,
      withdrawDelay: o.delays[(next ? seller.offers++ : seller.offers - 1) % o.delays.length],
      ...(o.minDeposit !== undefined ? { minDeposit: o.minDeposit.toString() } : {}),
    },
  })
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!
    const signature = req.headers['payment-signature']
    const accepts = [offer(typeof signature !== 'string')]
    if (typeof signature === 'string') {
      seller.kept.push({
        path,
        payload: decodeHeader<Record<string, any>>(signature)!,
        at: Math.floor(Date.now() / 1000),
      })
      return void res
        .writeHead(402, {
          'payment-required': encodeHeader({
            x402Version: 2,
            error: 'insufficient_funds',
            resource: { url: `${seller.url}${path}` },
            accepts,
          }),
          'content-type': 'application/json',
        })
        .end('{}')
    }
    res
      .writeHead(402, {
        'payment-required': encodeHeader({ x402Version: 2, resource: { url: `${seller.url}${path}` }, accepts }),
        'content-type': 'application/json',
      })
      .end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  seller.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  seller.close = () => new Promise((resolve) => server.close(() => resolve()))
  return seller
}
