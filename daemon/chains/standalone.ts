import { mkdirSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { Keypair } from '@solana/web3.js'
import bs58 from 'bs58'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { contractsEnv, rpcEnv } from '../../src/config/problems.js'
import { BaseError } from '../../src/errors/index.js'
import { type NetworkSpec, networks, profiles } from '../../src/networks/registry.js'
import { fromFile, loadOrCreateKeyFile } from '../keys/service-keys.js'
import { localFaucet } from '../local/faucet.js'
import { openStore } from '../store/store.js'
import { deploymentStore } from './embedded/deployments.js'
import { startLocalEvm } from './embedded/local-evm.js'
import { startLocalSolana } from './embedded/local-solana.js'

/** Solana devnet's genesis hash: what `getGenesisHash` answers when the chains present themselves as testnet. */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1iZbV4zxDkYJ'

export type StandaloneChainsOptions = {
  /**
   * `local`: the local profile's networks and ids; `testnet`: base-sepolia's and radius-testnet's chain ids and
   * devnet's genesis.
   */
  as: 'local' | 'testnet'
  /** Chain state, the chains' store and their service keys (keys.json, 0600). */
  dataDir: string
  host?: string
  /** First of five ports: Base, Radius, Solana RPC, Solana websocket, faucet. 0 picks free ones. */
  port?: number
  fresh?: boolean
}

export type StandaloneChains = {
  as: 'local' | 'testnet'
  /** RPC URL by network key, as serve.rpc takes it. */
  rpc: Record<string, string>
  /** Deployed addresses (EVM) and mints (Solana) by network key, as serve.contracts takes them. */
  contracts: Record<string, Record<string, string>>
  /** POST {network, to, token, amount} mints test tokens (or sets ETH) like the daemon's local faucet. */
  faucetUrl: string
  /** Public addresses of the keys the chains were seeded for (solver inventory, gas). */
  accounts: { deployer: string; solver: string; facilitator: string; solanaSolver: string; solanaFacilitator: string }
  /** The PARX_* lines that point a daemon of the matching profile at these chains, keys included (test keys only). */
  env: Record<string, string>
  stop(): Promise<void>
}

/**
 * Runs only the embedded chains, as standalone RPC endpoints a daemon (or a team) connects to:
 * both anvils with the contracts and test tokens deployed and seeded for the solver, the Solana
 * RPC with its mints and inventory, and the faucet. A restart on the same data dir reuses all of it.
 */
export async function startStandaloneChains(opts: StandaloneChainsOptions): Promise<StandaloneChains> {
  if (opts.fresh) rmSync(opts.dataDir, { recursive: true, force: true })
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 })
  const host = opts.host ?? '127.0.0.1'
  const portFor = (offset: number) => (opts.port ? opts.port + offset : undefined)
  const keyFile = loadOrCreateKeyFile(opts.dataDir)
  const keys = fromFile(keyFile)
  // The chains' own SQLite: their deployments (the store's table) and the Solana cluster's state.
  const chainsDb = join(opts.dataDir, 'chains.db')
  const store = await openStore({ file: chainsDb })
  const deployments = deploymentStore(store)
  const profile = profiles[opts.as]
  // The networks as the target profile names them, run by us: anvil mines on arrival, so poll fast.
  const embedded = (key: string): NetworkSpec => ({ ...networks[key]!, rpc: 'embedded' })
  const stops: Array<() => Promise<void> | void> = [() => store.close()]
  const stop = once(async () => {
    for (const fn of stops.reverse()) await fn()
  })
  try {
    const started = await Promise.allSettled([
      startLocalEvm({ spec: embedded(profile.base), dataDir: opts.dataDir, port: portFor(0), deployments, keys }),
      startLocalEvm({ spec: embedded(profile.radius), dataDir: opts.dataDir, port: portFor(1), deployments, keys }),
      startLocalSolana({
        spec: embedded(profile.solana),
        host,
        port: portFor(2),
        chainDbFile: chainsDb,
        deployments,
        keys,
        genesisHash: opts.as === 'testnet' ? DEVNET_GENESIS_HASH : undefined,
      }),
    ])
    for (const r of started) if (r.status === 'fulfilled') stops.push(r.value.stop)
    const failed = started.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined
    if (failed) throw failed.reason
    const [base, radius, sol] = started.map((r) => (r as PromiseFulfilledResult<never>).value) as unknown as [
      Awaited<ReturnType<typeof startLocalEvm>>,
      Awaited<ReturnType<typeof startLocalEvm>>,
      Awaited<ReturnType<typeof startLocalSolana>>,
    ]
    const evm = { [base.chain.key]: base.chain, [radius.chain.key]: radius.chain }
    const faucet = localFaucet({ evm, deployerKey: keys.deployer as Hex, solanaKey: sol.chain.key, solana: sol.faucet })
    const faucetServer = await serveFaucet(faucet, host, portFor(4) ?? 0)
    stops.push(() => new Promise<void>((resolve) => faucetServer.close(() => resolve())))
    const faucetPort = (faucetServer.address() as AddressInfo).port

    const evmAddresses = (c: typeof base.chain) => ({
      ...Object.fromEntries(Object.values(c.tokens).map((t) => [t.symbol, t.address])),
      ...c.contracts,
    })
    const contracts: Record<string, Record<string, string>> = {
      [base.chain.key]: evmAddresses(base.chain),
      [radius.chain.key]: evmAddresses(radius.chain),
      [sol.chain.key]: {
        ...Object.fromEntries(Object.values(sol.chain.mints).map((m) => [m.symbol, m.mint.toBase58()])),
        // The cross-chain programs, so a daemon on these chains serves both rails.
        ...Object.fromEntries(
          Object.entries(sol.chain.programs)
            .filter(([, id]) => id)
            .map(([name, id]) => [name, id!.toBase58()]),
        ),
      },
    }
    const rpc = {
      [base.chain.key]: base.chain.rpcUrl,
      [radius.chain.key]: radius.chain.rpcUrl,
      [sol.chain.key]: sol.chain.rpcUrl,
    }
    const env: Record<string, string> = { PARX_PROFILE: opts.as }
    for (const [key, url] of Object.entries(rpc)) env[rpcEnv(key)] = url
    for (const [key, addresses] of Object.entries(contracts)) env[contractsEnv(key)] = JSON.stringify(addresses)
    Object.assign(env, {
      PARX_SOLVER_KEY: keyFile.solver,
      PARX_FACILITATOR_KEY: keyFile.facilitator,
      PARX_SOLANA_SOLVER_KEY: keyFile.solanaSolver,
      PARX_SOLANA_FACILITATOR_KEY: keyFile.solanaFacilitator,
      PARX_ATTESTOR_KEYS: keyFile.attestors.join(','),
      PARX_SOLANA_ATTESTOR_KEYS: keyFile.solanaAttestors.join(','),
      PARX_OPERATOR_TOKEN: keyFile.operatorToken,
    })
    // A testnet daemon needs its public origin (docs/hosting.md "Hosting safely"): on these chains it is
    // tried on this machine, at the default address (change it with the daemon's --port).
    if (opts.as !== 'local') env.PARX_PUBLIC_ORIGIN = 'http://127.0.0.1:8420'
    return {
      as: opts.as,
      rpc,
      contracts,
      faucetUrl: `http://${host.includes(':') ? `[${host}]` : host}:${faucetPort}/faucet`,
      accounts: {
        deployer: privateKeyToAccount(keys.deployer).address,
        solver: privateKeyToAccount(keys.solver).address,
        facilitator: privateKeyToAccount(keys.facilitator).address,
        solanaSolver: Keypair.fromSecretKey(bs58.decode(keyFile.solanaSolver)).publicKey.toBase58(),
        solanaFacilitator: Keypair.fromSecretKey(bs58.decode(keyFile.solanaFacilitator)).publicKey.toBase58(),
      },
      env,
      stop,
    }
  } catch (e) {
    await stop()
    throw e
  }
}

/** The faucet over plain HTTP: POST {network, to, token, amount} -> {tx}; errors as {error, code}. */
function serveFaucet(faucet: ReturnType<typeof localFaucet>, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    if (req.method !== 'POST' || req.url !== '/faucet')
      return reply(404, { error: 'POST /faucet only', code: 'NOT_FOUND' })
    let raw = ''
    req.on('data', (d: Buffer) => {
      raw += d.toString()
      if (raw.length > 10_000) req.destroy()
    })
    req.on('end', async () => {
      let body: Record<string, unknown>
      try {
        body = JSON.parse(raw) as Record<string, unknown>
      } catch {
        return reply(400, { error: 'the body is not valid JSON', code: 'MALFORMED_JSON' })
      }
      const field = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : '')
      if (!field('network') || !field('to') || !field('token') || !field('amount')) {
        return reply(400, { error: 'network, to, token and amount are required strings', code: 'BAD_REQUEST' })
      }
      try {
        reply(
          200,
          await faucet.mint({
            network: field('network'),
            to: field('to'),
            token: field('token'),
            amount: field('amount'),
          }),
        )
      } catch (e) {
        if (e instanceof BaseError) reply(400, { error: e.message, code: e.code })
        else reply(500, { error: (e as Error).message, code: 'INTERNAL' })
      }
    })
  })
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | undefined
  return () => (p ??= fn())
}
