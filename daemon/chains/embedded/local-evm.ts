import type { Address, Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { NetworkSpec } from '../../../src/networks/registry.js'
import { authCaptureContracts } from '../../../src/sdk/x402/evm/auth-capture/contracts.js'
import { batchSettlementContracts } from '../../../src/sdk/x402/evm/batch-settlement/contracts.js'
import type { ServiceKeys } from '../../keys/service-keys.js'
import { type EvmChain, evmChain, evmClient } from '../evm/chain.js'
import { startAnvil } from './anvil.js'
import type { SpawnedAnvil } from './anvil-spawn.js'
import { codeHashes, hasCode } from './code-hashes.js'
import type { DeploymentStore } from './deployments.js'
import { deployLocalEvm, deployMissingXchain, installCanonical } from './evm-deploy.js'
import { spawnChainAnvil } from './local-anvils.js'

export type LocalEvm = { chain: EvmChain; deployed: boolean; stop(): Promise<void> }

/**
 * Starts anvil for one embedded network with its state file in the data dir, and deploys the
 * contracts on the first start. A restart finds the addresses in the store and the code on chain,
 * and reuses both; the contracts at canonical addresses (Multicall3, Permit2, the x402 Permit2
 * proxy) are placed again at every start, so a chain made before one of them joined gets it.
 */
export async function startLocalEvm(p: {
  spec: NetworkSpec
  dataDir: string
  port?: number
  deployments: DeploymentStore
  keys: ServiceKeys
  spawned?: Promise<SpawnedAnvil>
  dumpsAfter?: Promise<unknown>
}): Promise<LocalEvm> {
  const anvil = await startAnvil({
    spawned: p.spawned ?? spawnChainAnvil(p.dataDir, p.spec, p.port),
    dumpsAfter: p.dumpsAfter,
  })
  try {
    const client = evmClient(p.spec, anvil.rpcUrl)
    let addresses = await p.deployments.read(p.spec.key)
    let deployed = false
    const attestors = p.keys.attestors.map((k) => privateKeyToAccount(k as Hex).address)
    const params = {
      client,
      spec: p.spec,
      deployerKey: p.keys.deployer,
      solverKey: p.keys.solver,
      fund: [privateKeyToAccount(p.keys.facilitator).address, ...attestors],
      attestors,
    }
    await installCanonical(client)
    if (!(await stillThere(client, addresses))) {
      addresses = await deployLocalEvm(params)
      await p.deployments.write(p.spec.key, addresses)
      deployed = true
    } else {
      const completed = await deployMissingXchain(params, addresses)
      if (completed) {
        addresses = completed
        await p.deployments.write(p.spec.key, addresses)
        deployed = true
      }
    }
    // The canonical contracts are placed at every start, so they are listed by name without being recorded.
    return {
      chain: evmChain(p.spec, anvil.rpcUrl, { ...addresses, ...batchSettlementContracts, ...authCaptureContracts }),
      deployed,
      stop: anvil.stop,
    }
  } catch (e) {
    await anvil.stop()
    throw e
  }
}

/** The recorded deployment is usable only if every contract still has code (a lost state file means redeploy). */
async function stillThere(client: EvmChain['client'], addresses: Record<string, string>): Promise<boolean> {
  const list = Object.values(addresses) as Address[]
  if (list.length === 0) return false
  return (await codeHashes(client, list)).every(hasCode)
}
