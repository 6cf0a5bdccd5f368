import type { Logger } from 'pino'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { ParxConfig } from '../../src/config/schema.js'
import type { XchainRail } from '../../src/sdk/xchain/wire.js'
import type { EvmChain } from '../chains/evm/chain.js'
import type { TxSender } from '../chains/evm/tx-sender.js'
import type { SolanaChain } from '../chains/solana/chain.js'
import { solanaKeypair } from '../keys/solana-keypair.js'
import type { Store } from '../store/store.js'
import { attestationStore } from './attestation-store.js'
import { type Attestor, createAttestor } from './attestors/attestor.js'
import { remoteAttestor } from './attestors/remote.js'
import { solverBalances } from './inventory.js'
import { type OrderStore, orderStore } from './order-store.js'
import { postgresOrderWakes, processOrderWakes } from './order-wakes.js'
import type { Rail } from './rail.js'
import { evmOriginRail } from './rails/evm-origin/rail.js'
import { solOriginRail } from './rails/sol-origin/rail.js'
import { reservations } from './reservations.js'
import { type XchainService, xchainService } from './service.js'
import { solverSwitches } from './solver-switches.js'
import { type SolverWorker, solverWorker } from './worker.js'

export type XchainParts = {
  service: XchainService
  worker: SolverWorker
  /** The three attestors; on the local profile the fault tests switch their mode. */
  attestors: Attestor[]
  orders: OrderStore
  rails: Partial<Record<XchainRail, Rail>>
  /** Stops listening for other replicas' orders (PostgreSQL). */
  stop(): Promise<void>
}

export type CreateXchainParameters = {
  store: Store
  evm: Record<string, EvmChain>
  base: EvmChain
  solana: SolanaChain
  keys: { solanaSolver: Uint8Array; attestors: [Hex, Hex, Hex]; solanaAttestors: [Uint8Array, Uint8Array, Uint8Array] }
  evmSolver: `0x${string}`
  baseSender: TxSender
  limits: ParxConfig['limits']
  timing: ParxConfig['xchain']
  log: Logger
  leading(): boolean
  /** The PostgreSQL store's URL: orders built on any replica wake the leader's worker (LISTEN/NOTIFY). */
  storeUrl?: string
}

/**
 * The cross-chain service from narrow parts: the rails this daemon serves, the three attestors
 * (each with its own key and its own chain clients), the solver worker and the surface.
 * A rail is served when its contracts are deployed on both chains.
 */
export function createXchain(p: CreateXchainParameters): XchainParts {
  const solver = solanaKeypair(p.keys.solanaSolver)
  const orders = orderStore(p.store)
  const rails: Partial<Record<XchainRail, Rail>> = {}
  if (p.solana.programs.originSettler && p.base.contracts.outputSettler) {
    rails['sol-origin'] = solOriginRail({
      solana: p.solana,
      base: p.base,
      solver,
      baseSender: p.baseSender,
      store: p.store,
      limits: p.limits,
      timing: p.timing,
    })
  }
  if (p.solana.programs.destSettler && p.base.contracts.escrow && p.base.contracts.verifier) {
    rails['evm-origin'] = evmOriginRail({
      solana: p.solana,
      base: p.base,
      solver,
      baseSender: p.baseSender,
      store: p.store,
      orders,
      limits: p.limits,
      timing: p.timing,
    })
  }
  const attestors = [0, 1, 2].map((index) => {
    const url = p.timing.attestorUrls[String(index) as '0' | '1' | '2']
    // One run as its own process is asked over HTTP; it must sign with the keys the chains know it by.
    if (url) {
      const expect = {
        ed25519: solanaKeypair(p.keys.solanaAttestors[index]!).publicKey.toBase58(),
        evm: privateKeyToAccount(p.keys.attestors[index]!).address,
      }
      return remoteAttestor({ index, url, expect })
    }
    return createAttestor({
      index,
      ed25519Secret: p.keys.solanaAttestors[index]!,
      evmKey: p.keys.attestors[index]!,
      checks: Object.fromEntries(Object.entries(rails).map(([name, rail]) => [name, rail.attestorCheck(index)])),
    })
  })
  const balance = solverBalances({
    evm: p.evm,
    solana: p.solana,
    evmSolver: p.evmSolver,
    solanaSolver: solver.publicKey,
  })
  const held = reservations({ store: p.store, balance })
  const switches = solverSwitches(p.store)
  const worker = solverWorker({
    rails,
    orders,
    attestations: attestationStore(p.store),
    reservations: held,
    switches,
    attestors,
    log: p.log,
    pollMs: p.timing.pollMs,
  })
  const wakes = p.storeUrl
    ? postgresOrderWakes({
        url: p.storeUrl,
        store: p.store,
        wake: worker.wake,
        onError: (err) =>
          p.log.warn(
            { err },
            'cross-chain order announcements: listener connection failed; the worker sweeps the store meanwhile',
          ),
      })
    : processOrderWakes(worker.wake)
  const service = xchainService({
    rails,
    orders,
    reservations: held,
    switches,
    attestors,
    worker,
    balance,
    leading: p.leading,
    wake: wakes.publish,
  })
  return { service, worker, attestors, orders, rails, stop: () => wakes.stop() }
}
