// Gasless swaps on the local profile with the SDK, as a partner backend does them.
// Run it against `parx serve`:
//   PARX_API_KEY=$(npx parx keys create --name example -o json | jq -r .key) npx tsx examples/swap.ts

import { createSwapClient } from 'parx/swap'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const apiUrl = process.env.PARX_API_URL ?? 'http://127.0.0.1:8420'
const apiKey = process.env.PARX_API_KEY // a partner key: `parx keys create`
const userKey = generatePrivateKey() // the end user's wallet: it signs, and never needs ETH
const account = privateKeyToAccount(userKey)

// Test USDC from the local faucet (what `parx faucet --to <address> --token USDC --amount 125` does).
const faucet = await fetch(`${apiUrl}/api/local/faucet`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ to: account.address, token: 'USDC', amount: '125' }),
})
if (!faucet.ok) throw new Error(`faucet: ${await faucet.text()}`)

const parx = createSwapClient({ account, apiUrl, apiKey })
const buy = await parx.swap({ in: 'USDC', out: 'PUSD', amount: '125' }) // entry buy, par
await parx.waitForInclusion(buy.hash) // polls /api/base/confirm
const par = await parx.swap({ in: 'PUSD', out: 'XUSD', amount: '12.345678' }) // partner stable to partner stable, par
await parx.waitForInclusion(par.hash)
const out = await parx.redeem({ in: 'PUSD', amount: '100' }) // quotes, signs minOutBase, submits
console.log(out.quote.minOutBase, (await parx.waitForInclusion(out.hash)).swap?.outputAmount)
