import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Hono } from 'hono'
import type { Hex } from 'viem'
import { isBaseError } from '../../../src/errors/index.js'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { parseInput } from '../../../src/sdk/parse-input.js'
import { AttestBody, type AttestorHealth, attestorPaths } from '../../../src/sdk/xchain/attestor.js'
import type { XchainRail } from '../../../src/sdk/xchain/wire.js'
import { evmChain } from '../../chains/evm/chain.js'
import { solanaChain } from '../../chains/solana/chain.js'
import { createApiServer } from '../../http/api-server.js'
import { readJson } from '../../http/parse.js'
import type { AttestorCheck } from '../rail.js'
import { evmOriginAttestorCheck } from '../rails/evm-origin/rail.js'
import { solOriginAttestorCheck } from '../rails/sol-origin/rail.js'
import { createAttestor } from './attestor.js'

/** An attest request names one order: a few hundred bytes. */
const ATTEST_MAX_BODY = 16 * 1024

/** Where attestor `index` reads the chains: its own RPC URLs, and the public addresses of the contracts it checks. */
export type AttestorChains = {
  base: { spec: NetworkSpec; rpcUrl: string; contracts: Record<string, string> }
  solana: { spec: NetworkSpec; rpcUrl: string; programs: Record<string, string> }
}

export type AttestorProcessParameters = {
  index: number
  keys: { evm: Hex; ed25519Secret: Uint8Array }
  chains: AttestorChains
  host: string
  port: number
  /**
   * How far back an open order can be (the daemon's xchain.expirySeconds): bounds the evm-origin lock search on real
   * chains.
   */
  expirySeconds: number
}

export type AttestorProcess = { url: string; health: AttestorHealth; stop(): Promise<void> }

/**
 * One attestor as its own process (`parx attestor --index N`): its keys, its own chain clients, and
 * two routes the solver worker calls (src/sdk/xchain/attestor.ts). It shares nothing with the
 * daemon but the chains it reads, so a compromised daemon cannot make it sign a delivery that did
 * not happen.
 */
export async function startAttestorProcess(p: AttestorProcessParameters): Promise<AttestorProcess> {
  const base = evmChain(p.chains.base.spec, p.chains.base.rpcUrl, p.chains.base.contracts)
  const solana = solanaChain(
    p.chains.solana.spec,
    p.chains.solana.rpcUrl,
    p.chains.solana.rpcUrl.replace(/^http/, 'ws'),
    p.chains.solana.programs,
  )
  const checks: Partial<Record<XchainRail, AttestorCheck>> = {}
  if (solana.programs.originSettler && base.contracts.outputSettler)
    checks['sol-origin'] = solOriginAttestorCheck({ solana, base }, p.index)
  if (solana.programs.destSettler && base.contracts.escrow && base.contracts.verifier) {
    checks['evm-origin'] = evmOriginAttestorCheck({ solana, base, timing: { expirySeconds: p.expirySeconds } }, p.index)
  }
  const attestor = createAttestor({ index: p.index, ed25519Secret: p.keys.ed25519Secret, evmKey: p.keys.evm, checks })
  const health: AttestorHealth = {
    ok: true,
    index: p.index,
    ed25519: attestor.ed25519,
    evm: attestor.evm,
    rails: Object.keys(checks) as XchainRail[],
  }

  const app = new Hono()
  app.get(attestorPaths.health, (c) => c.json(health))
  // The body is read within ATTEST_MAX_BODY (413 past it, the connection closed), never whole.
  app.post(attestorPaths.attest, async (c) =>
    c.json(await attestor.attest(parseInput(AttestBody, await readJson(c, ATTEST_MAX_BODY), 'body'))),
  )
  app.notFound((c) =>
    c.json(
      {
        error: `no route ${c.req.method} ${c.req.path} on an attestor: it serves GET /health and POST /attest`,
        code: 'NOT_FOUND',
      },
      404,
    ),
  )
  app.onError((e, c) => {
    if (isBaseError(e)) return c.json(e.toJSON(), e.status as 400)
    // A chain read that failed: the worker counts it as no answer and asks the others.
    return c.json(
      { error: `attestor ${p.index} could not check the chains: ${e.message}`, code: 'CHAIN_UNAVAILABLE' },
      503,
    )
  })

  const server: Server = createApiServer(app.fetch)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(p.port, p.host, () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${p.host.includes(':') ? `[${p.host}]` : p.host}:${port}`,
    health,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
