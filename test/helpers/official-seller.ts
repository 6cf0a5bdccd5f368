import { type FacilitatorClient, x402ResourceServer } from '@x402/core/server'
import {
  BatchSettlementEvmScheme as BatchServer,
  BatchSettlementChannelManager,
  type ChannelStorage,
} from '@x402/evm/batch-settlement/server'
import { ExactEvmScheme as ExactServer } from '@x402/evm/exact/server'
import { paymentMiddleware, setSettlementOverrides } from '@x402/express'
import express from 'express'
import type { Address } from 'viem'
import { listen } from './x402-buyers.js'

type Network = `${string}:${string}`

/** One paid GET route: its scheme (batch-settlement unless said), the most a request costs, and what it charges if less (usage-priced). */
export type OfficialRoute = {
  scheme?: 'batch-settlement' | 'exact'
  amount: string
  charge?: string
  /** Added to the price's extra (name and version are the token's), e.g. assetTransferMethod. */
  extra?: Record<string, unknown>
  extensions?: Record<string, unknown>
}

export type OfficialSeller = { url: string; manager: BatchSettlementChannelManager; close(): Promise<void> }

/**
 * A stock x402 seller as an integrator writes it from the official packages unchanged: express with
 * @x402/express's paymentMiddleware, @x402/evm's batch-settlement (and exact) server schemes, and the
 * batch channel manager claiming and settling through the given facilitator. A route answers
 * `{ paid: <scheme> }`, or `{ used: <charge> }` after charging that much below its price.
 */
export async function officialSeller(o: {
  facilitator: FacilitatorClient
  network: Network
  payTo: Address
  token: { address: string; name: string; version: string }
  routes: Record<string, OfficialRoute>
  storage?: ChannelStorage
}): Promise<OfficialSeller> {
  const scheme = new BatchServer(o.payTo, { withdrawDelay: 900, ...(o.storage ? { storage: o.storage } : {}) })
  const server = new x402ResourceServer(o.facilitator)
    .register(o.network, new ExactServer())
    .register(o.network, scheme)
  const app = express()
  const priced = Object.fromEntries(
    Object.entries(o.routes).map(([path, r]) => [
      `GET ${path}`,
      {
        accepts: {
          scheme: r.scheme ?? 'batch-settlement',
          network: o.network,
          payTo: o.payTo,
          price: {
            amount: r.amount,
            asset: o.token.address as Address,
            extra: { name: o.token.name, version: o.token.version, ...r.extra },
          },
        },
        ...(r.extensions ? { extensions: r.extensions } : {}),
      },
    ]),
  )
  app.use(paymentMiddleware(priced, server))
  for (const [path, r] of Object.entries(o.routes)) {
    app.get(path, (_req, res) => {
      if (r.charge === undefined) return void res.json({ paid: r.scheme ?? 'batch-settlement' })
      setSettlementOverrides(res, { amount: r.charge })
      res.json({ used: r.charge })
    })
  }
  const listening = await listen(app)
  const manager = new BatchSettlementChannelManager({
    scheme,
    facilitator: o.facilitator,
    receiver: o.payTo,
    token: o.token.address as Address,
    network: o.network,
  })
  return { ...listening, manager }
}
