import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApproveCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js'
import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { TOKEN_A, TOKEN_B, USDC } from '../src/networks/registry.js'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { settlementOf } from '../src/sdk/x402/client/fetch.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { listen, parxBuyer } from './helpers/x402-buyers.js'

/**
 * The real-network path: `parx chains --as testnet` (its function, in-process) serves anvils with
 * base-sepolia's and radius-testnet's chain ids and a Solana RPC with devnet's genesis; a
 * `--profile testnet` daemon is pointed at them only through the PARX_* lines the chains print.
 * Nothing embedded runs inside the daemon: every swap and settlement crosses its RPC URLs.
 */
let chains: StandaloneChains
let d: TestDaemon
let key: string
const chainsDir = mkdtempSync(join(tmpdir(), 'parx-chains-'))

beforeAll(async () => {
  chains = await startStandaloneChains({ as: 'testnet', dataDir: chainsDir, port: 0 })
  d = await startTestDaemon({ env: chains.env })
  key = await d.partnerKey()
})
afterAll(async () => {
  await d?.close()
  await chains?.stop()
  rmSync(chainsDir, { recursive: true, force: true })
})

const faucet = async (network: string, to: string, token: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, { method: 'POST', body: JSON.stringify({ network, to, token, amount }) })
  expect(res.status).toBe(200)
}
const balanceOf = (symbol: string, owner: Address) =>
  d.services.base.client.readContract({
    address: chains.contracts['base-sepolia']![symbol] as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })

describe('a --profile testnet daemon on external chains from `parx chains --as testnet`', () => {
  it('runs no chain of its own: its RPC URLs are the external ones, of the testnet networks', async () => {
    expect(d.services.config.profile).toBe('testnet')
    expect(d.urls.rpc).toEqual(chains.rpc)
    expect(Object.keys(d.services.evm).sort()).toEqual(['base-sepolia', 'radius-testnet'])
    // No faucet of its own: the faucet flow is off outside the local profile.
    expect(
      (
        await d.raw('/api/local/faucet', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to: chains.accounts.solver, token: 'USDC', amount: '1' }),
        })
      ).body.code,
    ).toBe('FLOW_DISABLED')
    const info = await d.call('/api/base/info')
    expect(info).toMatchObject({
      chainId: 84532,
      router: chains.contracts['base-sepolia']!.router,
      usdc: chains.contracts['base-sepolia']!.USDC,
      solver: chains.accounts.solver,
    })
    expect(info.out[TOKEN_A].inventory).toBeGreaterThan(0)
    const ready = await d.raw('/api/readiness')
    expect(ready.status).toBe(200)
    const caps = await d.call('/api/capabilities')
    expect(caps.flows['base.entry']).toMatchObject({ enabled: true })
    expect(caps.flows.faucet).toMatchObject({ enabled: false })
  })

  it('swaps USDC -> PUSD (entry) and PUSD -> XUSD (par) for a wallet with no ETH, balances checked on chain', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await faucet('base-sepolia', account.address, USDC, '50')
    const parx = createSwapClient({ account, apiUrl: d.urls.api, apiKey: key })
    const solver = chains.accounts.solver as Address

    const before = {
      userUsdc: await balanceOf(USDC, account.address),
      solverUsdc: await balanceOf(USDC, solver),
      solverPusd: await balanceOf(TOKEN_A, solver),
    }
    const entry = await parx.swap({ in: USDC, out: TOKEN_A, amount: '20' })
    expect(entry).toMatchObject({ status: 'submitted', kind: 'entry' })
    await parx.waitForInclusion(entry.hash)
    // base-sepolia's PUSD has 6 decimals (the registry's, not the local profile's 18).
    expect(await balanceOf(USDC, account.address)).toBe(before.userUsdc - 20_000_000n)
    expect(await balanceOf(TOKEN_A, account.address)).toBe(20_000_000n)
    expect(await balanceOf(USDC, solver)).toBe(before.solverUsdc + 20_000_000n)
    expect(await balanceOf(TOKEN_A, solver)).toBe(before.solverPusd - 20_000_000n)

    const par = await parx.swap({ in: TOKEN_A, out: TOKEN_B, amount: '5' })
    await parx.waitForInclusion(par.hash)
    expect(await balanceOf(TOKEN_A, account.address)).toBe(15_000_000n)
    expect(await balanceOf(TOKEN_B, account.address)).toBe(5_000_000n)
    expect(await d.services.base.client.getBalance({ address: account.address })).toBe(0n)

    // Redeem PUSD for USDC through the pool, for at least the quoted amount.
    const usdcBefore = await balanceOf(USDC, account.address)
    const redeem = await parx.redeem({ in: TOKEN_A, amount: '3' })
    await parx.waitForInclusion(redeem.hash)
    expect(await balanceOf(TOKEN_A, account.address)).toBe(12_000_000n)
    expect((await balanceOf(USDC, account.address)) - usdcBefore).toBeGreaterThanOrEqual(
      BigInt(redeem.quote.minOutBase),
    )
  })

  it('settles an x402 payment through the facilitator (/verify + /settle) with the parx client, exactly once', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    const payTo = privateKeyToAccount(generatePrivateKey()).address
    await faucet('base-sepolia', payer.address, USDC, '1')
    const app = express()
    app.use(
      paymentGate({
        facilitator: { url: d.urls.facilitator },
        routes: {
          'GET /report': {
            prices: [{ network: 'base-sepolia', asset: USDC, amount: '10000', payTo, method: 'eip3009' }],
          },
        },
      }),
    )
    app.get('/report', (_req, res) => void res.json({ paid: true }))
    const seller = await listen(app)
    try {
      const unpaid = await fetch(`${seller.url}/report`)
      expect(unpaid.status).toBe(402)
      const res = await parxBuyer(d, { evm: payer })(`${seller.url}/report`)
      expect(res.status).toBe(200)
      expect(settlementOf(res)).toMatchObject({ success: true, payer: payer.address, network: 'eip155:84532' })
      expect(await balanceOf(USDC, payTo)).toBe(10_000n)
      expect(await balanceOf(USDC, payer.address)).toBe(990_000n)
    } finally {
      await seller.close()
    }
  })

  it('settles an x402 payment on radius-testnet (eip3009) through the same facilitator', async () => {
    const payer = privateKeyToAccount(generatePrivateKey())
    const payTo = privateKeyToAccount(generatePrivateKey()).address
    await faucet('radius-testnet', payer.address, USDC, '1')
    const radius = d.services.evm['radius-testnet']!
    const usdc = chains.contracts['radius-testnet']!.USDC as Address
    const app = express()
    app.use(
      paymentGate({
        facilitator: { url: d.urls.facilitator },
        routes: {
          'GET /r': { prices: [{ network: 'radius-testnet', asset: USDC, amount: '20000', payTo, method: 'eip3009' }] },
        },
      }),
    )
    app.get('/r', (_req, res) => void res.json({ paid: true }))
    const seller = await listen(app)
    try {
      const res = await parxBuyer(d, { evm: payer })(`${seller.url}/r`)
      expect(res.status).toBe(200)
      expect(settlementOf(res)).toMatchObject({ success: true, network: 'eip155:72344' })
      expect(
        await radius.client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [payTo] }),
      ).toBe(20_000n)
    } finally {
      await seller.close()
    }
  })

  it('settles a Solana x402 payment (delegated-spl) through the facilitator against the external Solana RPC', async () => {
    const connection = new Connection(chains.rpc['solana-devnet']!, 'confirmed')
    const mint = new PublicKey(chains.contracts['solana-devnet']!.USDC!)
    const payer = Keypair.generate()
    const payTo = Keypair.generate().publicKey
    await faucet('solana-devnet', payer.publicKey.toBase58(), 'SOL', '1')
    await faucet('solana-devnet', payer.publicKey.toBase58(), USDC, '1')
    // The payer's one-time setup: the facilitator's signer becomes the delegate of its token account.
    const payerAta = getAssociatedTokenAddressSync(mint, payer.publicKey)
    const approve = createApproveCheckedInstruction(
      payerAta,
      mint,
      new PublicKey(chains.accounts.solanaFacilitator),
      payer.publicKey,
      1_000_000n,
      6,
    )
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash()
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [approve],
      }).compileToV0Message(),
    )
    tx.sign([payer])
    const sig = await connection.sendRawTransaction(tx.serialize())
    expect(
      (await connection.confirmTransaction({ signature: sig, blockhash, lastValidBlockHeight })).value.err,
    ).toBeNull()

    const app = express()
    app.use(
      paymentGate({
        facilitator: { url: d.urls.facilitator },
        routes: {
          'GET /sol': { prices: [{ network: 'solana-devnet', asset: USDC, amount: '10000', payTo: payTo.toBase58() }] },
        },
      }),
    )
    app.get('/sol', (_req, res) => void res.json({ paid: true }))
    const seller = await listen(app)
    try {
      const res = await parxBuyer(d, { solana: payer })(`${seller.url}/sol`)
      expect(res.status).toBe(200)
      expect(settlementOf(res)).toMatchObject({ success: true, network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' })
      const balance = async (owner: PublicKey) =>
        BigInt((await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(mint, owner))).value.amount)
      expect(await balance(payTo)).toBe(10_000n)
      expect(await balance(payer.publicKey)).toBe(990_000n)
    } finally {
      await seller.close()
    }
  })

  it('builds a Solana swap against the external Solana RPC (devnet genesis), the user signs and lands it', async () => {
    const connection = new Connection(chains.rpc['solana-devnet']!, 'confirmed')
    const mints = Object.fromEntries(
      Object.entries(chains.contracts['solana-devnet']!).map(([s, m]) => [s, new PublicKey(m)]),
    )
    const user = Keypair.generate()
    await faucet('solana-devnet', user.publicKey.toBase58(), USDC, '10')
    const r = await d.raw('/api/sol/swap', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ net: 'devnet', user: user.publicKey.toBase58(), uiAmount: '4', in: USDC, out: TOKEN_A }),
    })
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toMatchObject({ network: 'solana-devnet', kind: 'entry' })
    const tx = Transaction.from(Buffer.from(r.body.txB64, 'base64'))
    tx.partialSign(user)
    const signature = await connection.sendRawTransaction(tx.serialize())
    const { value } = await connection.confirmTransaction({
      signature,
      blockhash: r.body.blockhash,
      lastValidBlockHeight: r.body.lastValidBlockHeight,
    })
    expect(value.err).toBeNull()
    const balance = async (symbol: string) =>
      BigInt(
        (await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(mints[symbol]!, user.publicKey))).value
          .amount,
      )
    expect(await balance(USDC)).toBe(6_000_000n)
    expect(await balance(TOKEN_A)).toBe(4_000_000_000n)
  })
})
