import { Keypair } from '@solana/web3.js'
import type { Hex } from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { fillRecordPda } from '../../contracts/solana/client.js'
import { TOKEN_A } from '../../src/networks/registry.js'
import { buildSignSubmitEvmOrigin } from '../../src/sdk/xchain/evm-origin-client.js'
import type { TestDaemon } from './daemon.js'
import type { XchainClient } from './xchain.js'

/** The evm-origin side of the cross-chain tests: Base wallets with no ETH, Base's clock, status on the evm-origin rail. */
export function evmOrigin(d: TestDaemon, x: XchainClient) {
  const base = () => d.services.base
  const status = (orderId: string, rail = 'evm-origin') => x.status(orderId, rail)

  /** Polls evm-origin status until `until(body)` holds, or throws naming the last answer. */
  async function waitStatus(orderId: string, until: (b: any) => boolean, timeoutMs = 60_000): Promise<any> {
    const end = Date.now() + timeoutMs
    for (;;) {
      const last = (await status(orderId)).body
      if (until(last)) return last
      if (Date.now() > end)
        throw new Error(`order ${orderId} did not reach the expected status; last answer: ${JSON.stringify(last)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }

  /** A fresh Base wallet holding `fund` of `symbol` and no ETH. */
  async function newUser(fund: string, symbol = TOKEN_A): Promise<PrivateKeyAccount> {
    const account = privateKeyToAccount(generatePrivateKey())
    await d.call('/api/local/faucet', {
      body: { network: base().key, to: account.address, token: symbol, amount: fund },
    })
    return account
  }

  /** Moves Base's clock past `unixSeconds` (one block just after it), so an order expires without waiting. */
  async function passBaseTime(unixSeconds: number): Promise<void> {
    const rpc = (method: string, params: unknown[]) =>
      fetch(base().rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json())
    if (Number((await base().client.getBlock()).timestamp) > unixSeconds) return
    await rpc('evm_setNextBlockTimestamp', [unixSeconds + 1])
    await rpc('evm_mine', [])
  }

  /** A gasless order of `uiAmount` PUSD from a fresh wallet with no ETH to a fresh Solana recipient. */
  async function openOrder(uiAmount: string, fund = uiAmount) {
    const user = await newUser(fund)
    const recipient = Keypair.generate().publicKey
    const r = await buildSignSubmitEvmOrigin({ apiUrl: d.urls.api, apiKey: x.key }, user, {
      inSym: TOKEN_A,
      outSym: TOKEN_A,
      uiAmount,
      recipientSol: recipient.toBase58(),
    })
    return { user, recipient, ...r }
  }

  /** dest_settler's fill record of an order (null when never filled). */
  const fillRecord = (orderId: Hex) =>
    x.connection.getAccountInfo(fillRecordPda(d.services.solana.programs.destSettler!, orderId))

  return { status, waitStatus, newUser, passBaseTime, openOrder, fillRecord }
}
