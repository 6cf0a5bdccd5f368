import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import Database from 'better-sqlite3'
import { type Address, createPublicClient, erc20Abi, getAddress, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { AUTH_CAPTURE_V1_1, authCaptureEscrowAbi } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import { decodeHeader } from '../src/sdk/x402/wire.js'
import { until } from './helpers/api-calls.js'
import {
  crash,
  operatorHeaders,
  rpc,
  type ServeProcess,
  spawnServe,
  stopServe,
  untilStateWritten,
} from './helpers/serve-crash.js'

/**
 * Crash safety of a platform endpoint offering auth-capture (`parx serve`, SQLite): one paid call
 * is answered (held and captured), a second is held and its upstream still working, when the
 * daemon and its chains are killed (-9). After the restart nothing is captured twice (the escrow
 * shows the first capture once, the same payment sent again moves nothing) and no hold is
 * forgotten: the leader's sweep voids the one no request will finish (its row aged past the
 * sweep's 10 minutes while the daemon was down, not by waiting), so the buyer is whole on chain.
 */
const PRICE = 1000n
/** The leader's hold sweep every half second (default 30 s): the void follows the restart at once. */
const SWEEP = { PARX_SELLER_HOLDS_SWEEP_EVERY_SECONDS: '0.5' }
const dataDir = mkdtempSync(join(tmpdir(), 'parx-crash-platform-ac-'))
let serve: ServeProcess | undefined
const slow: ServerResponse[] = []
const servers: Server[] = []
afterAll(async () => {
  for (const r of slow) r.destroy()
  if (serve) await stopServe(serve)
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()))
  rmSync(dataDir, { recursive: true, force: true })
})

const upstreamServer = async () => {
  const server = createServer((req, res) =>
    req.url === '/slow' ? void slow.push(res) : res.end(JSON.stringify({ report: 'paid' })),
  )
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  servers.push(server)
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('a platform auth-capture endpoint killed -9 mid-flight', () => {
  it('after an answered capture and an answered authorize: after the restart the capture is on chain once and the orphaned hold is voided', async () => {
    const upstream = await upstreamServer()
    serve = await spawnServe(dataDir, SWEEP)
    const op = createPlatformClient({
      url: serve.api,
      operatorToken: operatorHeaders(dataDir).authorization.slice('Bearer '.length),
    })
    const seller = createPlatformClient({
      url: serve.api,
      userKey: (await op.createUser({ body: { name: 'seller' } })).userKey,
    })
    const agent = await seller.createAgent({ body: { name: 'payee', network: 'local-base' } })
    const body = {
      upstreamUrl: `${upstream}/report`,
      price: '0.001',
      network: 'local-base',
      token: 'USDC',
      payTo: agent.id,
      authCapture: true,
    }
    const e = await seller.createEndpoint({ body })
    const held = await seller.createEndpoint({ body: { ...body, upstreamUrl: `${upstream}/slow` } })

    const chainOf = (s: ServeProcess) => createPublicClient({ transport: http(s.rpc['local-base']!) })
    const supported = (await (await fetch(`${serve.api}/facilitator/supported`)).json()) as {
      kinds: Array<{ scheme: string; network: string; extra: Record<string, unknown> }>
    }
    const network = `eip155:${Number(await rpc<Hex>(serve.rpc['local-base']!, 'eth_chainId'))}`
    const usdc = getAddress(
      supported.kinds.find((k) => k.scheme === 'auth-capture' && k.network === network)!.extra.asset as string,
    )
    const balance = (a: string) =>
      chainOf(serve!).readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [a as Address] })
    const state = (id: string) =>
      chainOf(serve!).readContract({
        address: AUTH_CAPTURE_V1_1.escrow,
        abi: authCaptureEscrowAbi['v1.1'],
        functionName: 'paymentState',
        args: [id as Hex],
      }) as Promise<readonly [boolean, bigint, bigint]>
    const buyer = privateKeyToAccount(generatePrivateKey())
    expect(
      (
        await fetch(`${serve.api}/api/local/faucet`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ to: buyer.address, token: 'USDC', amount: '1' }),
        })
      ).status,
    ).toBe(200)
    // The paid request's PAYMENT-SIGNATURE, to send it again after the restart.
    const sent: string[] = []
    const recording: typeof fetch = async (input, init) => {
      const req = new Request(input, init)
      const sig = req.headers.get('payment-signature')
      if (sig) sent.push(sig)
      return fetch(req)
    }
    const pay = wrapFetchWithPayment(
      recording,
      x402Client.fromConfig({
        schemes: [
          { network: 'eip155:*', client: new AuthCaptureEvmScheme(toClientEvmSigner(buyer, chainOf(serve) as never)) },
        ],
        spendControls: {
          allowedAssets: [{ network: network as `${string}:${string}`, asset: usdc, maxAmountPerPayment: '10000' }],
        },
      }),
    )

    const r = await pay(e.url)
    expect(r.status).toBe(200)
    const captured = (
      decodeHeader(r.headers.get('payment-response') ?? undefined) as { extra: Record<string, unknown> }
    ).extra.paymentInfoHash as string
    const paid = sent[0]!
    const cut = pay(held.url).then(
      () => 'answered',
      () => 'cut',
    )
    await until(
      async () => slow.length,
      (n) => n === 1,
      'the held call to reach the upstream',
    )
    expect(await balance(buyer.address)).toBe(1_000_000n - 2n * PRICE)
    // The chain's state file holds both: what a crash then loses is the daemon's own, which is the point.
    await untilStateWritten(serve, dataDir)
    await crash(serve, dataDir)
    expect(await cut).toBe('cut')

    // While it is down: the store knows the held one, and it has been untouched for 11 minutes.
    const db = new Database(join(dataDir, 'parx.db'))
    const rows = db.prepare('select id, status, tag from x402_seller_holds order by created_at').all() as Array<{
      id: string
      status: string
      tag: string
    }>
    expect(rows.map((x) => [x.tag, x.status])).toEqual([
      [e.id, 'captured'],
      [held.id, 'held'],
    ])
    db.prepare('update x402_seller_holds set updated_at = updated_at - 660000').run()
    db.close()
    const orphan = rows[1]!.id

    serve = await spawnServe(dataDir, SWEEP)
    expect(await state(captured)).toEqual([true, 0n, PRICE])
    expect(await state(orphan)).toEqual([true, PRICE, 0n])
    // The answered payment sent again captures nothing more.
    // The port is new: the same paid path on the restarted daemon.
    const again = await fetch(`${serve.api}/paid/${e.id}`, { headers: { 'PAYMENT-SIGNATURE': paid } })
    expect(again.status).toBe(402)
    expect(await state(captured)).toEqual([true, 0n, PRICE])
    expect(await balance(agent.wallet)).toBe(PRICE)

    // The leader's sweep (every 0.5 s here) voids the orphaned hold and leaves the captured one alone.
    await until(
      () => state(orphan).then((s) => s.map(String)),
      (s) => s[1] === '0',
      'the sweep to void the orphaned hold',
      90_000,
    )
    expect(await state(orphan)).toEqual([true, 0n, 0n])
    expect(await state(captured)).toEqual([true, 0n, PRICE])
    expect(await balance(buyer.address)).toBe(1_000_000n - PRICE)
    expect(await balance(agent.wallet)).toBe(PRICE)
  }, 240_000)
})
