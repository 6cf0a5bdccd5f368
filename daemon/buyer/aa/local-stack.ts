import {
  type Account,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  parseEther,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type Alto, startAlto } from '../../chains/embedded/alto.js'
import { type AaDeployment, deployAa } from './deploy.js'
import { createSponsor, type Sponsor, type SponsorParameters } from './sponsor.js'

export type LocalAaParameters = {
  rpcUrl: string
  client: PublicClient
  /** Funds everything; owns the paymaster. */
  deployer: WalletClient<Transport, Chain, Account>
  sponsorKey: LocalAccount
  /** alto's keys: the executor submits bundles, the utility key deploys alto's simulation contracts. */
  executorKey: Hex
  utilityKey: Hex
  sponsors: SponsorParameters['sponsors']
}

export type LocalAa = { deployment: AaDeployment; alto: Alto; sponsor: Sponsor; stop(): Promise<void> }

/**
 * Gasless sends on a local chain, in one call: the ERC-4337 contracts and our paymaster deployed,
 * the bundler's keys funded by the deployer, alto started against the chain, and the sponsor that
 * signs for the paymaster. `stop` ends alto (the chain is the caller's).
 */
export async function startLocalAa(p: LocalAaParameters): Promise<LocalAa> {
  const deployment = await deployAa({ client: p.client, deployer: p.deployer, sponsor: p.sponsorKey.address })
  for (const key of [p.executorKey, p.utilityKey]) {
    const hash = await p.deployer.sendTransaction({ to: privateKeyToAccount(key).address, value: parseEther('10') })
    await p.client.waitForTransactionReceipt({ hash })
  }
  const alto = await startAlto({
    rpcUrl: p.rpcUrl,
    entryPoints: [deployment.entryPoint],
    executorKeys: [p.executorKey],
    utilityKey: p.utilityKey,
  })
  const sponsor = createSponsor({ paymaster: deployment.paymaster, signer: p.sponsorKey, sponsors: p.sponsors })
  return { deployment, alto, sponsor, stop: () => alto.stop() }
}
