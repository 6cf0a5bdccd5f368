import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createTestClient, createWalletClient, http, keccak256, parseEther, toHex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { LOCAL_BASE_CHAIN_ID } from '../../../src/networks/registry.js'
import { startAnvil } from '../../chains/embedded/anvil.js'
import { ENTRY_POINT_08, SIMPLE_7702_ACCOUNT } from './canonical.js'
import { deployAa } from './deploy.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-aa-deploy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('deployAa on a persisted local chain', () => {
  it('deploys the canonical pair once; a restarted chain keeps them and the deploy is skipped', async () => {
    const deployer = privateKeyToAccount(keccak256(toHex('parx aa deploy test')))
    const statePath = join(dir, 'anvil.json')
    const run = async () => {
      const anvil = await startAnvil({ chainId: LOCAL_BASE_CHAIN_ID, statePath })
      try {
        const transport = http(anvil.rpcUrl)
        const client = createPublicClient({ transport, pollingInterval: 50 })
        const chain = {
          id: LOCAL_BASE_CHAIN_ID,
          name: 'test',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: [anvil.rpcUrl] } },
        } as const
        await createTestClient({ chain, transport, mode: 'anvil' }).setBalance({
          address: deployer.address,
          value: parseEther('100'),
        })
        const wallet = createWalletClient({ account: deployer, chain, transport, pollingInterval: 50 })
        const before = await client.getTransactionCount({ address: deployer.address })
        const d = await deployAa({ client, deployer: wallet, sponsor: deployer.address })
        const sent = (await client.getTransactionCount({ address: deployer.address })) - before
        for (const a of [ENTRY_POINT_08, SIMPLE_7702_ACCOUNT])
          expect((await client.getCode({ address: a }))?.length).toBeGreaterThan(100)
        return { d, sent }
      } finally {
        await anvil.stop()
      }
    }
    const first = await run()
    // Two CREATE2 deployments, the paymaster, its deposit and its stake.
    expect(first.sent).toBe(5)
    const second = await run()
    // The canonical pair survived the restart: only the paymaster and its funding are new.
    expect(second.sent).toBe(3)
    expect(second.d.paymaster).not.toBe(first.d.paymaster)
  }, 60_000)
})
