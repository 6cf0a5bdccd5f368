import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier'
import express from 'express'
import { paymentGate } from '../../src/sdk/x402/seller/middleware.js'
import type { TestDaemon } from './daemon.js'
import { localBase } from './x402.js'
import { listen } from './x402-buyers.js'

/**
 * Two sellers of `GET /report` for `price` USDC base units to `payTo`, both on the daemon's
 * facilitator: the reference's (`@x402/express` declaring payment-identifier, as its docs show)
 * answering `{ report: 'official' }`, and ours (`paymentGate`, eip3009) answering `{ report: 'ours' }`.
 */
export async function reportSellers(d: TestDaemon, payTo: string, price: string) {
  const b = localBase(d)
  const usdc = b.token('USDC')
  const network = b.caip2 as `${string}:${string}`
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: d.urls.facilitator })).register(
    network,
    new ExactEvmServerScheme(),
  )
  const a = express()
  a.use(
    paymentMiddleware(
      {
        'GET /report': {
          accepts: {
            scheme: 'exact',
            network,
            payTo,
            price: { amount: price, asset: usdc.address, extra: { name: usdc.name, version: usdc.version } },
          },
          extensions: { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension() },
        },
      },
      server,
    ),
  )
  a.get('/report', (_req, res) => void res.json({ report: 'official' }))
  const p = express()
  p.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /report': { prices: [{ network: 'local-base', asset: 'USDC', amount: price, payTo, method: 'eip3009' }] },
      },
    }),
  )
  p.get('/report', (_req, res) => void res.json({ report: 'ours' }))
  return { official: await listen(a), ours: await listen(p) }
}
