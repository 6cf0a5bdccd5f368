import { erc20Abi } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * A restart keeps the platform: users, agents and their keys are in the store, the sealed wallets
 * still open (same keys.json), and the ERC-4337 contracts deployed at the first send are reused
 * (the paymaster recorded in `deployments` is not deployed again).
 */
let d: TestDaemon | undefined
afterAll(async () => d?.close())

describe('platform across a restart', () => {
  it('agents, keys and the AA deployment survive; the agent sends again gaslessly', async () => {
    d = await startTestDaemon()
    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: {} })
    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const a = await user.createAgent({ body: { name: 'persisted', network: 'local-base' } })
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '5' } })
    const to = '0x4ac8ee94a7435b4fbbd62f70c95f66537822ae3a'
    await createPlatformClient({ url: d.urls.platform, agentKey }).send({
      params: { id: a.id },
      body: { to, amount: '1' },
    })
    const readPaymaster = () =>
      d!.services.store.db
        .selectFrom('deployments')
        .select('address')
        .where('network', '=', 'local-base:aa')
        .where('name', '=', 'paymaster')
        .executeTakeFirst()
    const paymaster = (await readPaymaster())?.address
    expect(paymaster).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const dataDir = d.dataDir
    await d.close({ keepData: true })

    d = await startTestDaemon({ dataDir })
    const agent = createPlatformClient({ url: d.urls.platform, agentKey })
    expect((await agent.whoamiAgent({})).wallet).toBe(a.wallet)
    const sent = await agent.send({ params: { id: a.id }, body: { to, amount: '1.5' } })
    expect(sent.method).toBe('userOperation')
    expect((await readPaymaster())?.address).toBe(paymaster)
    const chain = d.services.base
    expect(
      await chain.client.readContract({
        address: chain.tokens.PUSD!.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [a.wallet],
      }),
    ).toBe(25n * 10n ** 17n)
    expect(await chain.client.getBalance({ address: a.wallet })).toBe(0n)
    expect((await agent.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('2.5')
  }, 180_000)
})
