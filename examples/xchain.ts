// A Solana -> Base cross-chain order with the SDK, as a partner backend does it.
// Run it against `parx serve`:
//   PARX_API_KEY=$(npx parx keys create --name example -o json | jq -r .key) npx tsx examples/xchain.ts
import { Connection, Keypair } from '@solana/web3.js'
import { createXchainClient } from 'parx/xchain'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const apiUrl = process.env.PARX_API_URL ?? 'http://127.0.0.1:8420'
const apiKey = process.env.PARX_API_KEY // a partner key: `parx keys create`
const config = await (await fetch(`${apiUrl}/api/config`)).json()
const connection = new Connection(config.urls.rpc[config.networks.solana], 'confirmed')
const user = Keypair.generate() // the end user's Solana wallet: it signs the lock and holds no SOL
const recipientEvm = privateKeyToAccount(generatePrivateKey()).address // who gets the output on Base

// Test PUSD on Solana from the local faucet
// (what `parx faucet --network local-solana --to <pubkey> --token PUSD` does).
const faucet = await fetch(`${apiUrl}/api/local/faucet`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ network: config.networks.solana, to: user.publicKey.toBase58(), token: 'PUSD', amount: '50' }),
})
if (!faucet.ok) throw new Error(`faucet: ${await faucet.text()}`)

const xchain = createXchainClient({ apiUrl, apiKey })
const { built } = await xchain.openSolOrigin({
  signer: user,
  connection,
  inSym: 'PUSD',
  outSym: 'PUSD',
  uiAmount: '12.5',
  recipientEvm,
})
const final = await xchain.waitForStatus(built.orderId) // polls /api/xchain/status until claimed, refunded or attention
console.log(final.status, final.delivered, final.recipient === recipientEvm)
