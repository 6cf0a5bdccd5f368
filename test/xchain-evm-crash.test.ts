import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import { type Address, encodeFunctionData, getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { TOKEN_A } from '../src/networks/registry.js'
import { tokenAbi } from '../src/sdk/x402/evm/calls.js'
import { buildSignSubmitEvmOrigin } from '../src/sdk/xchain/evm-origin-client.js'
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

const dataDir = mkdtempSync(join(tmpdir(), 'parx-xchain-evm-crash-'))
let serve: ServeProcess | undefined
afterAll(async () => {
  if (serve) expect(await stopOrCrash(serve, dataDir), 'parx serve stops within 20 s of SIGTERM').toBe(true)
  rmSync(dataDir, { recursive: true, force: true })
}, 60_000)

const ENV = { PARX_XCHAIN_FILL_SECONDS: '120', PARX_XCHAIN_EXPIRY_SECONDS: '240' }

describe('evm-origin crash safety', () => {
  it('kill -9 between the Solana fill and the Base claim: after restart the order is claimed, and the recipient was paid exactly once', async () => {
    serve = await spawnServe(dataDir, ENV)
    const operator = operatorHeaders(dataDir)
    const partner = await partnerHeaders(serve, dataDir)
    const sol = (await call(serve.api, '/api/sol/info')).body
    const baseInfo = (await call(serve.api, '/api/base/info')).body
    const mint = new PublicKey(sol.mints[TOKEN_A].mint)
    const solSolver = new PublicKey(sol.solver)
    const baseSolver = getAddress(baseInfo.solver) as Address
    const basePusd = getAddress(baseInfo.out[TOKEN_A].addr) as Address
    let connection = new Connection(serve.rpc['local-solana']!, 'confirmed')
    const tokenBalance = async (owner: PublicKey) => {
      const ata = getAssociatedTokenAddressSync(mint, owner)
      return (await connection.getAccountInfo(ata))
        ? BigInt((await connection.getTokenAccountBalance(ata)).value.amount)
        : 0n
    }
    const baseBalance = async (owner: Address) =>
      BigInt(
        await rpc<Hex>(serve!.rpc['local-base']!, 'eth_call', [
          { to: basePusd, data: encodeFunctionData({ abi: tokenAbi, functionName: 'balanceOf', args: [owner] }) },
          'latest',
        ]),
      )

    const user = privateKeyToAccount(generatePrivateKey())
    expect(
      (
        await call(serve.api, '/api/local/faucet', {
          body: { network: 'local-base', to: user.address, token: TOKEN_A, amount: '9' },
        })
      ).status,
    ).toBe(200)
    const recipient = Keypair.generate().publicKey
    const before = { solSolver: await tokenBalance(solSolver), baseSolver: await baseBalance(baseSolver) }

    // Deliveries on, claims held: the order stops right after its fill.
    expect(
      (await call(serve.api, '/api/solver/pause', { body: { deliveries: false, claims: true }, headers: operator }))
        .body.paused,
    ).toEqual({ deliveries: false, claims: true })
    const { orderId, submitted } = await buildSignSubmitEvmOrigin(
      { apiUrl: serve.api, apiKey: partner['x-api-key'] },
      user,
      { inSym: TOKEN_A, outSym: TOKEN_A, uiAmount: '9', recipientSol: recipient.toBase58() },
    )
    expect(submitted.opened).toBe(true)
    const status = (api: string) =>
      call(api, `/api/xchain/status/${orderId}?rail=evm-origin`, { headers: partner }).then((r) => r.body)
    const delivered = await until(
      () => status(serve!.api),
      (b) => b.stage === 'delivered',
      'the delivery',
    )
    expect(delivered).toMatchObject({ status: 'pending', delivered: '9000000000' })
    expect(await tokenBalance(recipient)).toBe(9_000_000_000n)

    await crash(serve, dataDir)
    serve = await spawnServe(dataDir, ENV)
    connection = new Connection(serve.rpc['local-solana']!, 'confirmed')
    expect((await status(serve.api)).stage).toBe('delivered')
    expect((await call(serve.api, '/api/solver/resume', { body: {}, headers: operator })).body).toEqual({
      paused: { deliveries: false, claims: false },
    })
    const done = await until(
      () => status(serve!.api),
      (b) => b.status !== 'pending',
      'the claim after restart',
    )
    expect(done).toMatchObject({ status: 'claimed', delivered: '9000000000' })

    // Paid once on Solana, claimed once on Base.
    expect(await tokenBalance(recipient)).toBe(9_000_000_000n)
    expect(await tokenBalance(solSolver)).toBe(before.solSolver - 9_000_000_000n)
    expect(await baseBalance(user.address)).toBe(0n)
    expect(await baseBalance(baseSolver)).toBe(before.baseSolver + 9_000_000_000_000_000_000n)
    expect(BigInt(await rpc<Hex>(serve.rpc['local-base']!, 'eth_getBalance', [user.address, 'latest']))).toBe(0n)
  }, 180_000)
})
