import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Keypair } from '@solana/web3.js'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme, toClientEvmSigner } from '@x402/evm'
import { wrapFetchWithPayment as officialFetch } from '@x402/fetch'
import type { Express } from 'express'
import type { PrivateKeyAccount } from 'viem/accounts'
import { wrapFetchWithPayment as parxFetch } from '../../src/sdk/x402/client/fetch.js'
import { ParxEvmClientScheme } from '../../src/sdk/x402/plugins/evm-client.js'
import { ParxSvmClientScheme } from '../../src/sdk/x402/plugins/svm-client.js'
import { keypairSigner } from '../../src/sdk/x402/svm/delegated-spl.js'
import type { TestDaemon } from './daemon.js'

/** Starts an express app on a free loopback port. */
export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r())),
  }
}

/** The buyer a stock x402 integration is: @x402/fetch with @x402/evm's ExactEvmScheme (eip3009). */
export function officialBuyer(d: TestDaemon, account: PrivateKeyAccount): typeof fetch {
  const client = x402Client.fromConfig({
    schemes: [
      { network: 'eip155:*', client: new ExactEvmScheme(toClientEvmSigner(account, d.services.base.client as never)) },
    ],
    // Our local tokens are not in the reference's default asset table.
    spendControls: false,
  })
  return officialFetch(fetch, client)
}

/** @x402/fetch with parx's scheme plugins: erc2612 on EVM, delegated-spl on Solana. */
export function officialBuyerWithParxPlugins(
  d: TestDaemon,
  keys: { evm?: PrivateKeyAccount; solana?: Keypair },
): typeof fetch {
  const schemes = []
  if (keys.evm)
    schemes.push({
      network: 'eip155:*' as const,
      client: new ParxEvmClientScheme({ signer: keys.evm, clients: [d.services.base.client] }),
    })
  if (keys.solana)
    schemes.push({ network: 'solana:*' as const, client: new ParxSvmClientScheme(keypairSigner(keys.solana)) })
  return officialFetch(fetch, x402Client.fromConfig({ schemes, spendControls: false }))
}

/** parx's own paying fetch (over `base`, default fetch; `paymentId` picks the purchase's id). */
export function parxBuyer(
  d: TestDaemon,
  keys: { evm?: PrivateKeyAccount; solana?: Keypair },
  version?: 1 | 2,
  base: typeof fetch = fetch,
  paymentId?: () => string,
): typeof fetch {
  return parxFetch(base, {
    ...(keys.evm ? { evm: { signer: keys.evm, clients: [d.services.base.client] } } : {}),
    ...(keys.solana ? { solana: { signer: keypairSigner(keys.solana) } } : {}),
    version,
    ...(paymentId ? { paymentId } : {}),
  })
}

/** Wraps fetch to keep every PAYMENT-SIGNATURE sent: what a buyer resends when it retries a purchase. */
export function recordingFetch() {
  const sent: string[] = []
  const f: typeof fetch = async (input, init) => {
    // The official client passes a Request (duck-typed: it may come from another realm than this file's Request).
    const h = new Headers(
      init?.headers ?? (typeof input === 'object' && 'headers' in input ? input.headers : undefined),
    )
    const sig = h.get('payment-signature')
    if (sig) sent.push(sig)
    return fetch(input, init)
  }
  return { f, sent }
}
