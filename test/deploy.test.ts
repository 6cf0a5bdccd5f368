import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, createPublicClient, erc20Abi, http, maxUint256, parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as ERC3009DepositCollector from '../contracts/evm/artifacts/ERC3009DepositCollector.js'
import * as Permit2DepositCollector from '../contracts/evm/artifacts/Permit2DepositCollector.js'
import * as X402BatchSettlement from '../contracts/evm/artifacts/X402BatchSettlement.js'
import { type Anvil, startAnvil } from '../daemon/chains/embedded/anvil.js'
import { main } from '../src/cli/main.js'
import { authCaptureContractSets, authCaptureRuntimeCode } from '../src/sdk/x402/evm/auth-capture/contracts.js'
import {
  BATCH_SETTLEMENT_ADDRESS,
  ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
  PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
} from '../src/sdk/x402/evm/batch-settlement/contracts.js'

/** `parx deploy` on a bare chain with base-sepolia's chain id: what an operator runs once per real network. */
let anvil: Anvil
const configDir = mkdtempSync(join(tmpdir(), 'parx-deploy-conf-'))
const solverKey = generatePrivateKey()
const facilitatorKey = generatePrivateKey()
const attestorKeys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()]
const solver = privateKeyToAccount(solverKey).address

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 84532 })
  for (const a of [solver, privateKeyToAccount(facilitatorKey).address]) {
    await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [a, `0x${parseEther('10').toString(16)}`],
      }),
    })
  }
})
afterAll(async () => {
  await anvil?.stop()
  rmSync(configDir, { recursive: true, force: true })
})

async function parx(args: string[], env: Record<string, string>) {
  const out: string[] = []
  const code = await main(['node', 'parx', ...args], {
    stdout: (s: string) => out.push(s),
    stderr: () => {},
    env: { PARX_CONFIG_DIR: configDir, ...env },
  })
  return { code, out }
}

const env = () => ({
  PARX_RPC_BASE_SEPOLIA: anvil.rpcUrl,
  PARX_SOLVER_KEY: solverKey,
  PARX_FACILITATOR_KEY: facilitatorKey,
  PARX_ATTESTOR_KEYS: attestorKeys.join(','),
})

describe('parx deploy --network base-sepolia', () => {
  it('deploys tokens (none configured), router, factory and empty pools, the cross-chain contracts; seeds nothing; --write puts them in the config file', async () => {
    const { code, out } = await parx(['deploy', '--network', 'base-sepolia', '--write', '--output', 'json'], env())
    expect(code).toBe(0)
    const r = JSON.parse(out.at(-1)!)
    expect(r.deployed).toEqual([
      'USDC',
      'PUSD',
      'XUSD',
      'router',
      'factory',
      'pair:PUSD/USDC',
      'pair:XUSD/USDC',
      'verifier',
      'escrow',
      'outputSettler',
    ])
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    for (const name of r.deployed)
      expect(await client.getCode({ address: r.contracts[name] })).toMatch(/^0x[0-9a-f]{10,}/)
    for (const symbol of ['USDC', 'PUSD', 'XUSD']) {
      const token = r.contracts[symbol] as Address
      // Nothing minted, and the solver lets the router and the settler pay from its (future) inventory.
      expect(await client.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply' })).toBe(0n)
      expect(
        await client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [solver, r.contracts.router],
        }),
      ).toBe(maxUint256)
      expect(
        await client.readContract({
          address: token,
          abi: erc20Abi,
          functionName: 'allowance',
          args: [solver, r.contracts.outputSettler],
        }),
      ).toBe(maxUint256)
    }
    // A bare anvil has no Permit2 or x402 proxy: said, not hidden.
    expect(r.notes.join('\n')).toContain('no Permit2')
    const file = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'))
    expect(file.serve.contracts['base-sepolia']).toEqual(r.contracts)
    expect(JSON.parse(r.env.PARX_CONTRACTS_BASE_SEPOLIA)).toEqual(r.contracts)
  })

  it('a second run finds everything configured on chain and deploys nothing', async () => {
    const { code, out } = await parx(['deploy', '--network', 'base-sepolia', '--output', 'json'], env())
    expect(code).toBe(0)
    expect(JSON.parse(out.at(-1)!).deployed).toEqual([])
  })

  it("reports the x402 batch-settlement contracts as the chain's own once they are there", async () => {
    expect(
      JSON.parse(
        (await parx(['deploy', '--network', 'base-sepolia', '--output', 'json'], env())).out.at(-1)!,
      ).notes.join('\n'),
    ).toContain('batch-settlement scheme is unavailable')
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    for (const [address, bytecode] of [
      [BATCH_SETTLEMENT_ADDRESS, X402BatchSettlement.deployedBytecode],
      [ERC3009_DEPOSIT_COLLECTOR_ADDRESS, ERC3009DepositCollector.deployedBytecode],
      [PERMIT2_DEPOSIT_COLLECTOR_ADDRESS, Permit2DepositCollector.deployedBytecode],
    ] as const)
      await client.request({ method: 'anvil_setCode' as never, params: [address, bytecode] as never })
    const { code, out } = await parx(['deploy', '--network', 'base-sepolia', '--output', 'json'], env())
    expect(code).toBe(0)
    const r = JSON.parse(out.at(-1)!)
    expect(r.deployed).toEqual([])
    expect(r.contracts).toMatchObject({
      batchSettlement: BATCH_SETTLEMENT_ADDRESS,
      erc3009DepositCollector: ERC3009_DEPOSIT_COLLECTOR_ADDRESS,
      permit2DepositCollector: PERMIT2_DEPOSIT_COLLECTOR_ADDRESS,
    })
    expect(r.notes.join('\n')).not.toContain('batch-settlement')
  })

  it("reports each x402 auth-capture set as the chain's own once all of it is there", async () => {
    const notes = async () => {
      const { code, out } = await parx(['deploy', '--network', 'base-sepolia', '--output', 'json'], env())
      expect(code).toBe(0)
      return JSON.parse(out.at(-1)!) as { contracts: Record<string, string>; deployed: string[]; notes: string[] }
    }
    const before = await notes()
    expect(before.notes.join('\n')).toContain("auth-capture scheme's v1.1 escrow is unavailable")
    expect(before.notes.join('\n')).toContain("auth-capture scheme's v1.0 escrow is unavailable")
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    // The v1.1 set only (its escrow, token store implementation and collectors): v1.0 stays missing.
    for (const [address, bytecode] of authCaptureRuntimeCode.slice(0, 5))
      await client.request({ method: 'anvil_setCode' as never, params: [address, bytecode] as never })
    const r = await notes()
    expect(r.deployed).toEqual([])
    expect(r.contracts).toMatchObject(authCaptureContractSets['v1.1'])
    for (const name of Object.keys(authCaptureContractSets['v1.0'])) expect(r.contracts[name]).toBeUndefined()
    expect(r.notes.join('\n')).not.toContain("auth-capture scheme's v1.1")
    expect(r.notes.join('\n')).toContain(
      `no authCaptureEscrowV1_0 ${authCaptureContractSets['v1.0'].authCaptureEscrowV1_0}`,
    )
  })

  it('refuses an RPC of another chain and lists what is missing', async () => {
    const { code, out } = await parx(['deploy', '--network', 'radius-testnet', '--output', 'json'], {
      PARX_RPC_RADIUS_TESTNET: anvil.rpcUrl,
    })
    expect(code).not.toBe(0)
    const e = JSON.parse(out.at(-1)!)
    expect(e.code).toBe('CONFIG_INVALID')
    expect(e.error).toContain("serves chain id 84532, not radius-testnet's 72344")
    expect(e.error).toContain('PARX_SOLVER_KEY')
  })

  it('has nothing to deploy on Solana', async () => {
    const { code, out } = await parx(['deploy', '--network', 'solana-devnet', '--output', 'json'], {})
    expect(code).not.toBe(0)
    expect(JSON.parse(out.at(-1)!).error).toContain('Solana network')
  })
})
