// The reference x402 facilitator for the benchmark, in its own process like ours: @x402/core's
// x402Facilitator with @x402/evm's ExactEvmScheme behind express, as the x402 examples serve it.
// Usage: node bin/run-ts.js bench/reference-facilitator.ts <rpcUrl> <chainId> <privateKey>
// Prints one JSON line {url} when listening; stops on SIGTERM.

import type { AddressInfo } from 'node:net'
import { x402Facilitator } from '@x402/core/facilitator'
import { toFacilitatorEvmSigner } from '@x402/evm'
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator'
import express from 'express'
import { createWalletClient, defineChain, type Hex, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

const [rpcUrl, chainIdArg, key] = process.argv.slice(2)
const chainId = Number(chainIdArg)
const chain = defineChain({
  id: chainId,
  name: 'bench',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl!] } },
  contracts: { multicall3: { address: '0xcA11bde05977b3631167028862bE2a173976CA11' } },
})
// The same polling interval parx uses on embedded chains, so neither side waits on a slower clock.
const client = createWalletClient({
  account: privateKeyToAccount(key as Hex),
  chain,
  transport: http(rpcUrl),
  pollingInterval: 50,
}).extend(publicActions)
const facilitator = new x402Facilitator()
registerExactEvmScheme(facilitator, {
  signer: toFacilitatorEvmSigner(client as never),
  networks: [`eip155:${chainId}`],
})

const app = express()
app.use(express.json())
app.get('/supported', (_req, res) => void res.json(facilitator.getSupported()))
app.post('/verify', async (req, res) => {
  try {
    res.json(await facilitator.verify(req.body.paymentPayload, req.body.paymentRequirements))
  } catch (e) {
    res.status(500).json({ error: (e as Error).message })
  }
})
app.post('/settle', async (req, res) => {
  try {
    res.json(await facilitator.settle(req.body.paymentPayload, req.body.paymentRequirements))
  } catch (e) {
    res.status(500).json({ error: (e as Error).message })
  }
})
const server = app.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
})
process.once('SIGTERM', () => server.close(() => process.exit(0)))
