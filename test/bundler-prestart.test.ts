import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { eventually } from './helpers/serve-process.js'

/**
 * The default (`bundler.prestart`): alto starts in the background right after the ready line, so
 * an agent's first send on local-base does not wait for it. The daemon starts with nothing asked
 * of it; alto must come up on its own, and the first send then uses that same alto.
 */
let d: TestDaemon
const altoStarts = () => {
  const log = join(d.dataDir, 'parx.log')
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l.includes('platform: alto started')).length
    : 0
}

beforeAll(async () => {
  d = await startTestDaemon({ flags: { logLevel: 'info', bundler: { prestart: true } } })
}, 120_000)
afterAll(async () => d?.close())

describe('the bundler starts after ready, before any send', () => {
  it('alto is up without a send, and the first send uses it (no second start)', async () => {
    // Bounded by attempts (alto deploys its simulation contracts first), not a time assertion.
    expect(await eventually(() => altoStarts() === 1, 600, 100)).toBe(true)

    const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'prestart' } })
    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const a = await user.createAgent({ body: { name: 'base', network: 'local-base' } })
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: a.wallet, token: 'PUSD', amount: '5' } })
    const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
    const agent = createPlatformClient({ url: d.urls.platform, agentKey })
    const to = privateKeyToAccount(generatePrivateKey()).address
    const sent = await agent.send({ params: { id: a.id }, body: { to, amount: '1.25' } })
    expect(sent).toMatchObject({ network: 'local-base', status: 'confirmed', amount: '1.25' })
    expect(sent.userOperation).toMatch(/^0x[0-9a-f]{64}$/)
    // PUSD has 18 decimals on local-base.
    const pusd = d.services.base.tokens.PUSD!.address
    expect(
      await d.services.base.client.readContract({
        address: pusd,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [to],
      }),
    ).toBe(1_250_000_000_000_000_000n)
    expect(altoStarts()).toBe(1)
  })
})
