import type { Logger } from 'pino'
import {
  type Address,
  createWalletClient,
  getAddress,
  type Hex,
  keccak256,
  type PublicClient,
  parseEther,
  toHex,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BaseError } from '../../../src/errors/index.js'
import type { Alto } from '../../chains/embedded/alto.js'
import type { DeploymentStore } from '../../chains/embedded/deployments.js'
import type { EvmChain } from '../../chains/evm/chain.js'
import { rpcHttp } from '../../chains/rpc-auth.js'
import type { createAgentAccount } from './agent-account.js'
import { ENTRY_POINT_08, SIMPLE_7702_ACCOUNT } from './canonical.js'
import type { Sponsor } from './sponsor.js'

/** What a gasless send on a local AA network needs once it is up. */
export type AaStack = { bundlerUrl: string; paymaster: Address; sponsor: Sponsor; chain: EvmChain; alto: Alto }

export type AaRuntime = {
  /**
   * Started on first call (deploy or reuse, then alto); later calls share it. BUNDLER_UNAVAILABLE when it cannot start.
   */
  stack(): Promise<AaStack>
  /** A sponsored EIP-7702 account for an agent's key. */
  account(privateKey: Hex): Promise<Awaited<ReturnType<typeof createAgentAccount>>>
  /** The bundler did not answer: stop what is left of it, and start it again on next use. */
  bundlerDown(): Promise<void>
  stop(): Promise<void>
}

export type AaRuntimeParameters = {
  chain: EvmChain
  /**
   * The local deployer key: the platform's AA keys are derived from it, so a restart finds the same paymaster signer.
   */
  deployerKey: Hex
  deployments: DeploymentStore
  /** The platform sponsors only its own agents' wallets. */
  isAgentWallet: (address: Address) => Promise<boolean>
  log: Logger
}

/** Where the paymaster is recorded: its own "network" key, so the chain's whole-deployment writes never drop it. */
const RECORD = (network: string) => `${network}:aa`

/**
 * The local profile's ERC-4337 stack for the platform, started on first use so `parx serve`'s ready
 * line never waits for it: EntryPoint v0.8 and Simple7702Account at their canonical addresses, our
 * VerifyingPaymaster (recorded in `deployments` and reused on restart while its code is there),
 * and alto in the background, stopped with the daemon. Its keys (deployer, sponsor, executor,
 * utility) are derived from the local deployer key and funded with `anvil_setBalance`, so they
 * never share a nonce with the faucet.
 */
export function aaRuntime(p: AaRuntimeParameters): AaRuntime {
  const derive = (label: string) => keccak256(toHex(`${p.deployerKey}:parx platform aa ${label}`))
  const keys = {
    deployer: derive('deployer'),
    sponsor: derive('sponsor'),
    executor: derive('executor'),
    utility: derive('utility'),
  }
  const client = p.chain.client as PublicClient
  let alto: Alto | undefined
  let starting: Promise<AaStack> | undefined
  let stopped = false

  // The EntryPoint checks the sponsor's validUntil against the block's time, which a local chain may
  // have moved ahead of the wall clock (evm_increaseTime, e.g. past a channel's withdraw delay).
  const chainNow = async () =>
    Math.max(Math.floor(Date.now() / 1000), Number((await client.getBlock({ blockTag: 'latest' })).timestamp))

  async function fund(address: Address, eth: string) {
    await client.request({ method: 'anvil_setBalance' as never, params: [address, toHex(parseEther(eth))] as never })
  }

  async function start(): Promise<AaStack> {
    // The stack's modules (permissionless, the contracts' bytecode, alto's launcher) load here, on first
    // use or at the prestart after ready, so `parx serve` never loads them before its ready line.
    const [{ deployAa }, { startAlto }, { createSponsor }] = await Promise.all([
      import('./deploy.js'),
      import('../../chains/embedded/alto.js'),
      import('./sponsor.js'),
    ])
    const sponsorAccount = privateKeyToAccount(keys.sponsor)
    const deployer = privateKeyToAccount(keys.deployer)
    let paymaster = (await p.deployments.readOne(RECORD(p.chain.key), 'paymaster')) as Address | undefined
    const hasCode = async (a: Address) => ((await client.getCode({ address: a })) ?? '0x') !== '0x'
    if (
      !paymaster ||
      !(await hasCode(paymaster)) ||
      !(await hasCode(ENTRY_POINT_08)) ||
      !(await hasCode(SIMPLE_7702_ACCOUNT))
    ) {
      await fund(deployer.address, '100')
      const wallet = createWalletClient({ account: deployer, chain: client.chain!, transport: rpcHttp(p.chain.rpcUrl) })
      const d = await deployAa({ client, deployer: wallet, sponsor: sponsorAccount.address })
      paymaster = getAddress(d.paymaster)
      await p.deployments.writeOne(RECORD(p.chain.key), 'paymaster', paymaster)
      p.log.info({ network: p.chain.key, paymaster }, 'platform: ERC-4337 contracts deployed')
    }
    for (const k of [keys.executor, keys.utility]) await fund(privateKeyToAccount(k).address, '100')
    const a = await startAlto({
      rpcUrl: p.chain.rpcUrl,
      entryPoints: [ENTRY_POINT_08],
      executorKeys: [keys.executor],
      utilityKey: keys.utility,
    })
    if (stopped) {
      await a.stop()
      throw new BaseError('BUNDLER_UNAVAILABLE', 'the daemon is stopping; nothing was spent')
    }
    alto = a
    p.log.info({ network: p.chain.key, bundler: a.url }, 'platform: alto started')
    return {
      alto: a,
      bundlerUrl: a.url,
      paymaster,
      sponsor: createSponsor({ paymaster, signer: sponsorAccount, sponsors: p.isAgentWallet, now: chainNow }),
      chain: p.chain,
    }
  }

  const stack = () => {
    starting ??= start().catch((e) => {
      starting = undefined
      p.log.warn({ err: e }, 'platform: the ERC-4337 stack did not start; retried on next use')
      throw e instanceof BaseError
        ? e
        : new BaseError(
            'BUNDLER_UNAVAILABLE',
            `the bundler could not be started (${(e as Error).message}); nothing was spent`,
            { cause: e },
          )
    })
    return starting
  }

  return {
    stack,
    async account(privateKey) {
      const [s, { createAgentAccount }] = await Promise.all([stack(), import('./agent-account.js')])
      return createAgentAccount({
        owner: privateKeyToAccount(privateKey),
        client,
        chain: client.chain!,
        bundlerUrl: s.bundlerUrl,
        sponsor: s.sponsor,
      })
    },
    async bundlerDown() {
      const was = alto
      alto = undefined
      starting = undefined
      await was?.stop()
      p.log.warn({ network: p.chain.key }, 'platform: the bundler did not answer; it is started again on next use')
    },
    async stop() {
      stopped = true
      await starting?.catch(() => {})
      await alto?.stop()
    },
  }
}
