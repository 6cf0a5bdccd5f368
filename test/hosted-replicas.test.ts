import type { ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, PublicKey } from '@solana/web3.js'
import pg from 'pg'
import {
  type Address,
  createPublicClient,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  keccak256,
  parseAbiItem,
  toHex,
} from 'viem'
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as RfqSwap from '../contracts/evm/artifacts/RfqSwap.js'
import { type StandaloneChains, startStandaloneChains } from '../daemon/chains/standalone.js'
import { TOKEN_A, USDC } from '../src/networks/registry.js'
import { createSwapClient } from '../src/sdk/swap/index.js'
import { transferWithAuthorizationTypedData } from '../src/sdk/x402/evm/typed-data.js'
import { createXchainClient } from '../src/sdk/xchain/client.js'
import { pool } from './helpers/pool.js'
import { testPostgres } from './helpers/postgres.js'
import { relayerState } from './helpers/relayer-state.js'
import { serveReplica } from './helpers/replica.js'

/**
 * Issue 8's done-when, as an operator runs it: one PostgreSQL, the chains of
 * `parx chains --as testnet` (in-process, as test/realnet.test.ts), and four real `parx serve`
 * processes on them: two `--role api` replicas and two `--role worker` (one leads, one stands by).
 * Swaps and x402 settlements are spread over both replicas; the leader is killed with -9 (its whole
 * process group) while they run; everything is checked on chain. PostgreSQL only.
 */
const SWAPS = 100
const SETTLES = 100
/** How many requests are in flight at once (two cores shared with the chains and four daemons). */
const PARALLEL = 10
const PRICE = 10_000n // 0.01 USDC per payment

type Proc = { name: string; child: ChildProcess; dataDir: string; api: string; exited: Promise<void> }

let db: string
let chains: StandaloneChains
const procs: Proc[] = []
const dirs: string[] = []
const tmp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(d)
  return d
}

/** A replica in its own process group (the leader is killed with -9, group and all). */
async function serve(name: string, role: 'api' | 'worker'): Promise<Proc> {
  const dataDir = tmp(`parx-${name}-`)
  const p = {
    name,
    dataDir,
    ...(await serveReplica({ name, role, dataDir, chainsEnv: chains.env, storeUrl: db, detached: true })),
  }
  procs.push(p)
  return p
}

const leads = (p: Proc) => {
  const log = join(p.dataDir, 'parx.log')
  return existsSync(log) && readFileSync(log, 'utf8').includes('"leading the worker duties"')
}

async function until<T>(what: string, probe: () => T | Promise<T>, attempts = 600, everyMs = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const v = await probe()
    if (v) return v
    await new Promise((r) => setTimeout(r, everyMs))
  }
  throw new Error(`never happened: ${what}`)
}

const faucet = async (to: string, token: string, amount: string) => {
  const res = await fetch(chains.faucetUrl, {
    method: 'POST',
    body: JSON.stringify({ network: 'base-sepolia', to, token, amount }),
  })
  if (res.status !== 200) throw new Error(`faucet answered ${res.status}: ${await res.text()}`)
}

let started = 0
beforeAll(async () => {
  started = Date.now()
  db = await (await testPostgres()).createDatabase()
  chains = await startStandaloneChains({ as: 'testnet', dataDir: tmp('parx-chains-'), port: 0 })
  // Replicas first (the first one migrates the store), then the two workers.
  await serve('api-a', 'api')
  await Promise.all([serve('api-b', 'api'), serve('worker-1', 'worker'), serve('worker-2', 'worker')])
}, 240_000)

/** A failed test keeps every replica's log (copied out before the data dirs go), for what the output cannot say. */
let failed = false
afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true
})

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  await chains?.stop()
  if (failed) {
    const kept = mkdtempSync(join(tmpdir(), 'parx-hosted-replicas-logs-'))
    for (const p of procs)
      if (existsSync(join(p.dataDir, 'parx.log'))) cpSync(join(p.dataDir, 'parx.log'), join(kept, `${p.name}.log`))
    console.log(`[hosted-replicas] a test failed: the replicas' logs are kept in ${kept}`)
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
  console.log(`[hosted-replicas] whole file took ${((Date.now() - started) / 1000).toFixed(1)} s`)
}, 120_000)

describe('hosted: two api replicas and two workers on one PostgreSQL, on external testnet chains', () => {
  const proc = (name: string) => procs.find((p) => p.name === name)!
  const base = () => createPublicClient({ transport: http(chains.rpc['base-sepolia']) })
  const token = (symbol: string) => chains.contracts['base-sepolia']![symbol] as Address
  const balance = (symbol: string, owner: Address) =>
    base().readContract({ address: token(symbol), abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
  let key: string
  let keyId: string
  /** A wait that gives up says why: each Base relayer's nonces on the node, in the pool and in the outbox. */
  const explained = async <T>(wait: Promise<T>): Promise<T> => {
    try {
      return await wait
    } catch (e) {
      for (const relayer of [chains.accounts.solver, chains.accounts.facilitator] as Address[]) {
        console.log(
          `[hosted-replicas] ${await relayerState(chains.rpc['base-sepolia']!, db, 84532, relayer).catch((err: Error) => `unreadable: ${err.message}`)}`,
        )
      }
      throw e
    }
  }

  it('exactly one worker leads; the api replicas serve, the workers only their health', async () => {
    const leader = await until(
      'a worker leads',
      () => ['worker-1', 'worker-2'].filter((n) => leads(proc(n))).length > 0,
    )
    expect(leader).toBe(true)
    // Give the standby time at the lock (it tries every second): still one leader.
    await new Promise((r) => setTimeout(r, 2_500))
    expect(['worker-1', 'worker-2'].filter((n) => leads(proc(n)))).toHaveLength(1)
    expect(['api-a', 'api-b'].filter((n) => leads(proc(n)))).toHaveLength(0)
    for (const n of ['api-a', 'api-b']) expect((await fetch(`${proc(n).api}/api/base/info`)).status).toBe(200)
    expect((await fetch(`${proc('worker-1').api}/api/base/info`)).status).toBe(404)
    const created = (await (
      await fetch(`${proc('api-a').api}/api/operator/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${chains.env.PARX_OPERATOR_TOKEN}` },
        body: JSON.stringify({ name: 'hosted', owner: '0x00000000000000000000000000000000000000aa' }),
      })
    ).json()) as { key: string; id: string }
    key = created.key
    keyId = created.id
  })

  it(`${SWAPS} swaps and ${SETTLES} x402 settlements over both replicas all land once; the leader killed with -9 meanwhile hands over`, async () => {
    const solver = chains.accounts.solver as Address
    const facilitator = chains.accounts.facilitator as Address
    const users = Array.from({ length: SWAPS }, () => privateKeyToAccount(generatePrivateKey()))
    const payers = Array.from({ length: SETTLES }, () => privateKeyToAccount(generatePrivateKey()))
    const seller = privateKeyToAccount(generatePrivateKey()).address
    await pool([...users, ...payers], PARALLEL, (a) => faucet(a.address, USDC, '1'))
    const before = {
      solverUsdc: await balance(USDC, solver),
      solverPusd: await balance(TOKEN_A, solver),
      block: await base().getBlockNumber(),
    }
    const replicas = [proc('api-a').api, proc('api-b').api]

    // The leader dies with -9 (daemon and children) once a third of the work is done.
    const leader = ['worker-1', 'worker-2'].map(proc).find(leads)!
    const standby = ['worker-1', 'worker-2'].map(proc).find((p) => p !== leader)!
    let done = 0
    let failover: Promise<number> | undefined
    const progress = () => {
      if (++done !== Math.floor((SWAPS + SETTLES) / 3)) return
      const killedAt = Date.now()
      process.kill(-leader.child.pid!, 'SIGKILL')
      failover = until('the standby leads', () => leads(standby), 600, 50).then(() => Date.now() - killedAt)
    }

    const swapOne = async (account: PrivateKeyAccount, i: number) => {
      const client = createSwapClient({ account, apiUrl: replicas[i % 2]!, apiKey: key })
      const r = await client.swap({ in: USDC, out: TOKEN_A, amount: '0.5' })
      progress()
      return r.hash as Hex
    }
    const settleOne = async (payer: PrivateKeyAccount, i: number) => {
      const requirements = {
        scheme: 'exact',
        network: 'eip155:84532',
        asset: token(USDC),
        amount: PRICE.toString(),
        payTo: seller,
        maxTimeoutSeconds: 120,
        extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
      }
      const a = {
        from: payer.address,
        to: getAddress(seller),
        value: PRICE,
        validAfter: 0n,
        validBefore: BigInt(Math.floor(Date.now() / 1000) + 600),
        nonce: keccak256(toHex(`${i}:${Math.random()}`)),
      }
      const domain = { name: 'USD Coin', version: '2', chainId: 84532, verifyingContract: token(USDC) }
      const signature = await payer.signTypedData(transferWithAuthorizationTypedData(domain, a))
      const authorization = { ...a, value: a.value.toString(), validAfter: '0', validBefore: a.validBefore.toString() }
      const body = {
        x402Version: 2,
        paymentPayload: { x402Version: 2, accepted: requirements, payload: { signature, authorization } },
        paymentRequirements: requirements,
      }
      const res = await fetch(`${replicas[i % 2]}/facilitator/settle`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      const out = (await res.json()) as { success: boolean; transaction: Hex; errorReason?: string }
      progress()
      return { status: res.status, ...out, nonce: a.nonce }
    }

    const t0 = Date.now()
    const [hashes, settled] = await Promise.all([
      pool(users, PARALLEL / 2, swapOne),
      pool(payers, PARALLEL / 2, settleOne),
    ])
    const elapsed = Date.now() - t0
    expect(
      settled.filter((s) => !s.success),
      JSON.stringify(settled.filter((s) => !s.success).slice(0, 3)),
    ).toHaveLength(0)
    expect(new Set(hashes).size).toBe(SWAPS)

    // Every swap landed, successfully, exactly once.
    const receipts = await explained(
      Promise.all(hashes.map((hash) => base().waitForTransactionReceipt({ hash, timeout: 60_000 }))),
    )
    expect(receipts.every((r) => r.status === 'success')).toBe(true)
    for (const s of new Set(settled.map((s) => s.transaction)))
      expect((await base().waitForTransactionReceipt({ hash: s, timeout: 60_000 })).status).toBe('success')
    const to = await base().getBlockNumber()
    const swapped = await base().getContractEvents({
      address: chains.contracts['base-sepolia']!.router as Address,
      abi: RfqSwap.abi,
      eventName: 'Swapped',
      fromBlock: before.block + 1n,
      toBlock: to,
    })
    expect(swapped).toHaveLength(SWAPS)
    expect(new Set(swapped.map((e) => (e.args as { user: Address }).user)).size).toBe(SWAPS)
    for (const u of users) {
      expect(await balance(USDC, u.address)).toBe(500_000n)
      expect(await balance(TOKEN_A, u.address)).toBe(500_000n)
    }
    expect(await balance(USDC, solver)).toBe(before.solverUsdc + BigInt(SWAPS) * 500_000n)
    expect(await balance(TOKEN_A, solver)).toBe(before.solverPusd - BigInt(SWAPS) * 500_000n)

    // Every authorization used once, the seller paid exactly once per payment.
    const used = await base().getLogs({
      address: token(USDC),
      event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
      fromBlock: before.block + 1n,
      toBlock: to,
    })
    expect(used).toHaveLength(SETTLES)
    expect(new Set(used.map((l) => l.args.nonce)).size).toBe(SETTLES)
    expect(await balance(USDC, seller)).toBe(BigInt(SETTLES) * PRICE)
    for (const p of payers) expect(await balance(USDC, p.address)).toBe(1_000_000n - PRICE)

    // No nonce left unfilled: each relayer's store counter equals its mined count, nothing pending.
    const store = new pg.Client({ connectionString: db })
    await store.connect()
    try {
      for (const relayer of [solver, facilitator]) {
        const mined = await base().getTransactionCount({ address: relayer, blockTag: 'latest' })
        expect(await base().getTransactionCount({ address: relayer, blockTag: 'pending' })).toBe(mined)
        const row = await store.query('SELECT next_nonce FROM relayer_nonces WHERE chain_id = 84532 AND address = $1', [
          relayer.toLowerCase(),
        ])
        expect(Number(row.rows[0].next_nonce)).toBe(mined)
      }
      // Nothing signed was refused by the chain either.
      const refused = await store.query(
        `SELECT count(*)::int AS n FROM tx_outbox WHERE network = 'base-sepolia' AND state = 'failed'`,
      )
      expect(refused.rows[0].n).toBe(0)
    } finally {
      await store.end()
    }

    // The standby took the duties over.
    expect(failover).toBeDefined()
    const ms = await failover!
    console.log(
      `[hosted-replicas] ${SWAPS} swaps + ${SETTLES} settlements over 2 replicas in ${(elapsed / 1000).toFixed(1)} s; leader killed with -9, standby leading after ${ms} ms`,
    )
    expect(leads(standby)).toBe(true)
  }, 600_000)

  it('cross-chain orders in flight when the leader is killed with -9 are each delivered and claimed once by the next leader', async () => {
    // A new standby, so that killing the current leader hands over again.
    await serve('worker-3', 'worker')
    // The live leader (the one killed before still says it led in its log).
    const leader = ['worker-1', 'worker-2']
      .map(proc)
      .find((p) => p.child.exitCode === null && p.child.signalCode === null && leads(p))!
    const standby = proc('worker-3')
    const [a, b] = [proc('api-a').api, proc('api-b').api]
    const operator = { 'content-type': 'application/json', authorization: `Bearer ${chains.env.PARX_OPERATOR_TOKEN}` }
    const connection = new Connection(chains.rpc['solana-devnet']!, 'confirmed')
    const mint = new PublicKey(chains.contracts['solana-devnet']![TOKEN_A]!)
    const solanaSolver = new PublicKey(chains.accounts.solanaSolver)
    const splBalance = async (owner: PublicKey) => {
      const r = await connection
        .getTokenAccountBalance(getAssociatedTokenAddressSync(mint, owner, true))
        .catch(() => undefined)
      return BigInt(r?.value.amount ?? 0)
    }
    const solverBefore = await splBalance(solanaSolver)

    // Claims paused: the leader delivers every order and claims none, so all of them are mid-way when it dies.
    expect(
      (
        await fetch(`${a}/api/solver/pause`, {
          method: 'POST',
          headers: operator,
          body: JSON.stringify({ deliveries: false, claims: true }),
        })
      ).status,
    ).toBe(200)
    const N = 10
    const orders = await pool(
      Array.from({ length: N }, (_, i) => i),
      3,
      async (i) => {
        const user = Keypair.generate()
        const fund = await fetch(chains.faucetUrl, {
          method: 'POST',
          body: JSON.stringify({
            network: 'solana-devnet',
            to: user.publicKey.toBase58(),
            token: TOKEN_A,
            amount: '2',
          }),
        })
        expect(fund.status).toBe(200)
        const x = createXchainClient({ apiUrl: i % 2 ? b : a, apiKey: key })
        const recipientEvm = privateKeyToAccount(generatePrivateKey()).address
        const { built } = await x.openSolOrigin({
          signer: user,
          connection,
          inSym: TOKEN_A,
          outSym: TOKEN_A,
          uiAmount: '1.25',
          recipientEvm,
        })
        return {
          x,
          orderId: built.orderId,
          recipientEvm,
          outBase: BigInt(built.outAmountBase),
          inBase: BigInt(built.inAmountBase),
        }
      },
    )
    for (const o of orders)
      await explained(
        o.x.waitForStatus(o.orderId, { until: (s) => s.stage === 'delivered', timeoutMs: 60_000, intervalMs: 100 }),
      )

    // Claims resume and the leader dies with -9 at once: it may be collecting signatures or have
    // claims signed and persisted but not landed; the next leader must finish each, never twice.
    expect((await fetch(`${b}/api/solver/resume`, { method: 'POST', headers: operator, body: '{}' })).status).toBe(200)
    const watch = new pg.Client({ connectionString: db })
    await watch.connect()
    const ids = orders.map((o) => o.orderId)
    const sent = async () =>
      (
        await watch.query(
          'SELECT order_id, claim_ref FROM xchain_orders WHERE claim_ref IS NOT NULL AND order_id = ANY($1)',
          [ids],
        )
      ).rows as { order_id: string; claim_ref: string }[]
    // Killed as soon as the first claim is signed and persisted (it is persisted before broadcast).
    await until('a first claim sent', async () => (await sent()).length > 0, 2_000, 5)
    const killedAt = Date.now()
    process.kill(-leader.child.pid!, 'SIGKILL')
    const left = await sent()
    const claimsSent = left.length
    await watch.end()
    const claimedBeforeKill = (await Promise.all(orders.map((o) => o.x.status(o.orderId)))).filter(
      (s) => s.status === 'claimed',
    ).length
    await until('the new standby leads', () => leads(standby), 600, 50)
    const finals = await Promise.all(
      orders.map((o) => o.x.waitForStatus(o.orderId, { timeoutMs: 90_000, intervalMs: 100 })),
    )
    console.log(
      `[hosted-replicas] ${N} cross-chain orders: leader killed with ${claimedBeforeKill} claimed and ${claimsSent} claims sent; all ${finals.filter((f) => f.status === 'claimed').length} claimed ${Date.now() - killedAt} ms later by the next leader`,
    )
    expect(finals.map((f) => f.status)).toEqual(Array(N).fill('claimed'))
    // A claim the dead leader signed and persisted is the one that landed: the next leader sent
    // that same transaction again rather than waiting out its blockhash to sign another.
    for (const l of left) expect(finals.find((f) => f.orderId === l.order_id)?.claimRef).toBe(l.claim_ref)

    // Each delivered once (recipients hold exactly their output), each claimed once (the solver got exactly the inputs).
    for (const o of orders) expect(await balance(TOKEN_A, o.recipientEvm)).toBe(o.outBase)
    expect(await splBalance(solanaSolver)).toBe(solverBefore + orders.reduce((sum, o) => sum + o.inBase, 0n))
    const store = new pg.Client({ connectionString: db })
    await store.connect()
    try {
      const fills = await store.query(
        `SELECT refs, count(*)::int AS n FROM tx_outbox WHERE purpose = 'xchain-fill' GROUP BY refs`,
      )
      for (const o of orders) expect(fills.rows.find((r) => r.refs === o.orderId)?.n).toBe(1)
    } finally {
      await store.end()
    }
  }, 300_000)

  it('a key deactivated through replica A is refused by replica B within the documented time (5 s after its last read there)', async () => {
    const [a, b] = [proc('api-a').api, proc('api-b').api]
    const owner = privateKeyToAccount(generatePrivateKey()).address
    const asKey = () => fetch(`${b}/api/base/nonces?owner=${owner}`, { headers: { 'x-api-key': key } })
    expect((await asKey()).status).toBe(200) // B has a fresh "valid" verdict cached now
    const off = await fetch(`${a}/api/operator/keys/${keyId}/deactivate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${chains.env.PARX_OPERATOR_TOKEN}` },
    })
    expect(off.status).toBe(200)
    const t0 = Date.now()
    // 5 s documented (docs/hosting.md "The store"); polled for at most 8 s.
    const refused = await until('B refuses the key', async () => (await asKey()).status === 401, 80, 100)
    console.log(`[hosted-replicas] deactivated on A, refused by B after ${Date.now() - t0} ms`)
    expect(refused).toBe(true)
    expect((await (await asKey()).json()).code).toBe('UNAUTHORIZED')
  })
})
