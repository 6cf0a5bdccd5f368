import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js'
import { type Address, encodeFunctionData, getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { tokenAbi } from '../src/sdk/x402/evm/calls.js'
import { call, until } from './helpers/api-calls.js'
import {
  crash,
  operatorHeaders,
  partnerHeaders,
  rpc,
  type ServeProcess,
  spawnServe,
  stopOrCrash,
} from './helpers/serve-crash.js'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-xchain-crash-'))
let serve: ServeProcess | undefined
afterAll(async () => {
  if (serve) expect(await stopOrCrash(serve, dataDir), 'parx serve stops within 20 s of SIGTERM').toBe(true)
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

const ENV = { PARX_XCHAIN_FILL_SECONDS: '120', PARX_XCHAIN_EXPIRY_SECONDS: '240' }

describe('cross-chain crash safety', () => {
  it('kill -9 between deliver and claim: after restart the order is claimed, and the recipient was paid exactly once', async () => {
    serve = await spawnServe(dataDir, ENV)
    const operator = operatorHeaders(dataDir)
    const partner = await partnerHeaders(serve, dataDir)
    const sol = (await call(serve.api, '/api/sol/info')).body
    const config = (await call(serve.api, '/api/config')).body
    const mint = new PublicKey(sol.mints[TOKEN_A].mint)
    const solver = new PublicKey(sol.solver)
    let connection = new Connection(serve.rpc['local-solana']!, 'confirmed')
    const tokenBalance = async (owner: PublicKey) => {
      const ata = getAssociatedTokenAddressSync(mint, owner)
      return (await connection.getAccountInfo(ata))
        ? BigInt((await connection.getTokenAccountBalance(ata)).value.amount)
        : 0n
    }
    const baseInfo = (await call(serve.api, '/api/base/info')).body
    const basePusd = getAddress(baseInfo.out[TOKEN_A].addr) as Address
    const baseBalance = async (rpcUrl: string, owner: Address) =>
      BigInt(
        await rpc<Hex>(rpcUrl, 'eth_call', [
          { to: basePusd, data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [owner] }) },
          'latest',
        ]),
      )

    const user = Keypair.generate()
    expect(
      (
        await call(serve.api, '/api/local/faucet', {
          body: { network: 'local-solana', to: user.publicKey.toBase58(), token: TOKEN_A, amount: '9' },
        })
      ).status,
    ).toBe(200)
    const recipient = privateKeyToAccount(generatePrivateKey()).address
    const solverBefore = await tokenBalance(solver)

    // Deliveries on, claims held: the order stops right after its fill.
    expect(
      (await call(serve.api, '/api/solver/pause', { body: { deliveries: false, claims: true }, headers: operator }))
        .body.paused,
    ).toEqual({ deliveries: false, claims: true })
    const built = (
      await call(serve.api, '/api/xchain/sol-origin/open/build', {
        body: {
          user: user.publicKey.toBase58(),
          inSym: TOKEN_A,
          outSym: TOKEN_A,
          uiAmount: '9',
          recipientEvm: recipient,
        },
        headers: partner,
      })
    ).body
    expect(built.orderId).toMatch(/^0x[0-9a-f]{64}$/)
    const tx = Transaction.from(Buffer.from(built.txB64, 'base64'))
    tx.partialSign(user)
    const sig = await connection.sendRawTransaction(tx.serialize())
    await connection.confirmTransaction({
      signature: sig,
      blockhash: built.blockhash,
      lastValidBlockHeight: built.lastValidBlockHeight,
    })
    const status = (api: string) =>
      call(api, `/api/xchain/status/${built.orderId}`, { headers: partner }).then((r) => r.body)
    const delivered = await until(
      () => status(serve!.api),
      (b) => b.stage === 'delivered',
      'the delivery',
    )
    expect(delivered).toMatchObject({ status: 'pending', delivered: '9000000000000000000' })
    expect(await baseBalance(serve.rpc['local-base']!, recipient)).toBe(9_000_000_000_000_000_000n)

    await crash(serve, dataDir)
    serve = await spawnServe(dataDir, ENV)
    const rpcUrl = serve.rpc['local-base']!
    connection = new Connection(serve.rpc['local-solana']!, 'confirmed')
    // The pause is persisted: still delivered, unclaimed; then the operator resumes.
    expect((await status(serve.api)).stage).toBe('delivered')
    expect((await call(serve.api, '/api/solver/resume', { body: {}, headers: operator })).body).toEqual({
      paused: { deliveries: false, claims: false },
    })
    const done = await until(
      () => status(serve!.api),
      (b) => b.status !== 'pending',
      'the claim after restart',
    )
    expect(done).toMatchObject({ status: 'claimed', delivered: '9000000000000000000' })

    // Exactly one fill on Base (the fill record is the guard), and the money moved once on each chain.
    const logs = await rpc<unknown[]>(rpcUrl, 'eth_getLogs', [
      { address: config.outputSettler, fromBlock: '0x0', toBlock: 'latest', topics: [null, built.orderId] },
    ])
    expect(logs.length).toBe(1)
    expect(await baseBalance(rpcUrl, recipient)).toBe(9_000_000_000_000_000_000n)
    expect(await tokenBalance(user.publicKey)).toBe(0n)
    expect(await tokenBalance(solver)).toBe(solverBefore + 9_000_000_000n)
    expect(BigInt(await connection.getBalance(user.publicKey))).toBe(0n)
  }, 180_000)
})
