import { readFileSync, writeFileSync } from 'node:fs'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { platformKeyId } from '../daemon/platform/wallet-seal.js'
import { main } from '../src/cli/main.js'
import { keyFilePath } from '../src/config/paths.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * Issue 25 item 7: the platform wallet key can be rotated without losing an agent wallet. The
 * documented steps (docs/hosting.md "Hosting safely"): the new key as the platform key and the old one in
 * PARX_PLATFORM_WALLET_PREVIOUS_KEYS, `parx keys reseal`, then the old key removed.
 */
let d: TestDaemon | undefined
afterAll(async () => {
  await d?.close()
})

const post = (d: TestDaemon, path: string, headers: Record<string, string>, body: unknown) =>
  d.raw(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

/** The agent's wallet key as the daemon opens it for signing, and the address it must belong to. */
async function walletOf(d: TestDaemon, agentId: string) {
  const agent = (await d.services.platform.store.agent(agentId))!
  return {
    address: privateKeyToAccount(d.services.platform.store.walletKey(agent)).address,
    expected: agent.address,
    sealed: agent.wallet_sealed,
  }
}

describe('rotating the platform wallet key', () => {
  it('keeps every agent wallet: previous key opens, `parx keys reseal` re-seals, the new key alone then opens', async () => {
    d = await startTestDaemon()
    const dataDir = d.dataDir
    const user = await post(d, '/api/operator/users', d.operatorHeaders(), { name: 'rotator' })
    expect(user.status, JSON.stringify(user.body)).toBe(200)
    const agent = await post(
      d,
      '/api/agents',
      { 'x-user-key': user.body.userKey },
      { name: 'a', network: 'local-base' },
    )
    expect(agent.status, JSON.stringify(agent.body)).toBe(200)
    const id = agent.body.id as string
    const before = await walletOf(d, id)
    expect(before.address).toBe(before.expected)
    await d.close({ keepData: true })

    // Step 1: the new key seals, the old one is kept to open.
    const file = keyFilePath(dataDir)
    const keys = JSON.parse(readFileSync(file, 'utf8'))
    const oldKey = keys.platformWallet as string
    const newKey = generatePrivateKey()
    writeFileSync(file, JSON.stringify({ ...keys, platformWallet: newKey }), { mode: 0o600 })
    d = await startTestDaemon({ dataDir, env: { PARX_PLATFORM_WALLET_PREVIOUS_KEYS: oldKey } })
    expect((await walletOf(d, id)).address).toBe(before.expected)

    // Step 2: the command re-seals.
    const out: string[] = []
    const code = await main(
      [
        'node',
        'parx',
        'keys',
        'reseal',
        '--output',
        'json',
        '--api-url',
        d.urls.api,
        '--operator-token',
        d.services.keys.operatorToken,
      ],
      {
        stdout: (s: string) => out.push(s),
        stderr: (s: string) => out.push(s),
        env: {},
      },
    )
    expect(code, out.join('\n')).toBe(0)
    const report = JSON.parse(out.join('\n'))
    expect(report).toMatchObject({
      keyId: platformKeyId(newKey),
      agents: { resealed: 1, unopened: [] },
      webhooks: { unopened: [] },
    })
    const resealed = await walletOf(d, id)
    expect(resealed.sealed).not.toBe(before.sealed)
    expect(resealed.sealed.startsWith(`v2.${platformKeyId(newKey)}.`)).toBe(true)
    await d.close({ keepData: true })

    // Step 3: the old key is gone; the wallet still opens.
    d = await startTestDaemon({ dataDir })
    expect((await walletOf(d, id)).address).toBe(before.expected)
    const shown = await d.raw(`/api/agents/${id}`, { headers: { 'x-user-key': user.body.userKey } })
    expect(shown.status).toBe(200)
    expect(shown.headers.get('cache-control')).toBe('no-store')
  })
})
