import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  keccak256,
  parseEther,
  parseUnits,
  toHex,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import * as PermitToken from '../contracts/evm/artifacts/PermitToken.js'
import { createAgentAccount } from '../daemon/buyer/aa/agent-account.js'
import { startLocalAa } from '../daemon/buyer/aa/local-stack.js'
import { startAnvil } from '../daemon/chains/embedded/anvil.js'
import { LOCAL_BASE_CHAIN_ID } from '../src/networks/registry.js'
import { report, summary } from './lib.js'

const SENDS = 20

/**
 * Gasless sends on local-base: a 0-ETH EIP-7702 agent sends an ERC-20 through our paymaster and
 * alto's instant-bundling endpoint. Figures: submit (pimlico_sendUserOperationNow) to receipt, and
 * the whole send (prepare, sponsor signature, sign, submit, receipt). Sequential sends, after one
 * warm-up send that carries the EIP-7702 delegation.
 */
export async function benchAaSend(): Promise<void> {
  const anvil = await startAnvil({ chainId: LOCAL_BASE_CHAIN_ID })
  let stopAa = async () => {}
  try {
    const chain = defineChain({
      id: LOCAL_BASE_CHAIN_ID,
      name: 'bench',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    })
    const transport = http(anvil.rpcUrl)
    const client = createPublicClient({ chain, transport, pollingInterval: 50 })
    const key = (l: string) => keccak256(toHex(`parx bench aa ${l}`))
    const deployerAccount = privateKeyToAccount(key('deployer'))
    await createTestClient({ chain, transport, mode: 'anvil' }).setBalance({
      address: deployerAccount.address,
      value: parseEther('1000'),
    })
    const deployer = createWalletClient({ account: deployerAccount, chain, transport, pollingInterval: 50 })
    const owner = privateKeyToAccount(generatePrivateKey())
    const aa = await startLocalAa({
      rpcUrl: anvil.rpcUrl,
      client,
      deployer,
      sponsorKey: privateKeyToAccount(key('sponsor')),
      executorKey: key('executor'),
      utilityKey: key('utility'),
      sponsors: (a) => a === owner.address,
    })
    stopAa = aa.stop
    const deployHash = await deployer.deployContract({
      abi: PermitToken.abi,
      bytecode: PermitToken.bytecode,
      args: ['Parx USD', 'PUSD', '1', 18, deployerAccount.address],
    })
    const token = (await client.waitForTransactionReceipt({ hash: deployHash })).contractAddress!
    await client.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        address: token,
        abi: PermitToken.abi,
        functionName: 'mint',
        args: [owner.address, parseUnits('100', 18)],
      }),
    })

    const agent = await createAgentAccount({ owner, client, chain, bundlerUrl: aa.alto.url, sponsor: aa.sponsor })
    const data = encodeFunctionData({
      abi: PermitToken.abi,
      functionName: 'transfer',
      args: [deployerAccount.address, parseUnits('1', 18)],
    })
    await agent.sendNow([{ to: token, data }])
    const total: number[] = []
    const submit: number[] = []
    for (let i = 0; i < SENDS; i++) {
      const t0 = performance.now()
      const op = await agent.prepare([{ to: token, data }])
      const t1 = performance.now()
      const receipt = await agent.submit(op)
      const t2 = performance.now()
      if (!receipt.success) throw new Error('a benchmark send failed')
      total.push(t2 - t0)
      submit.push(t2 - t1)
    }
    if ((await client.getBalance({ address: owner.address })) !== 0n)
      throw new Error('the agent gained ETH: the sends were not gasless')
    const s = summary(submit)
    const t = summary(total)
    report('aa-send-submit-to-receipt-p50', s.p50, 'ms', { p99: Math.round(s.p99), n: s.n })
    report('aa-send-total-p50', t.p50, 'ms', { p99: Math.round(t.p99), n: t.n })
  } finally {
    await stopAa()
    await anvil.stop()
  }
}
