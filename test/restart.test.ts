import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { startTestDaemon } from './helpers/daemon.js'

describe('restart persistence', () => {
  it('a second start on the same data dir reuses the deployment, keys and balances; --fresh starts over', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address
    const first = await startTestDaemon()
    const { dataDir } = first
    const key = await first.partnerKey()
    const info1 = await first.call('/api/base/info')
    const config1 = await first.call('/api/config')
    await first.call('/api/local/faucet', { body: { to: owner, token: 'PUSD', amount: '42.000000000000000001' } })
    const operatorToken = first.services.keys.operatorToken
    await first.close({ keepData: true })

    expect(statSync(join(dataDir, 'keys.json')).mode & 0o777).toBe(0o600)
    expect(existsSync(join(dataDir, 'chains', 'local-base.json'))).toBe(true)

    const second = await startTestDaemon({ dataDir })
    try {
      const info2 = await second.call('/api/base/info')
      expect(info2.router).toBe(info1.router)
      const config2 = await second.call('/api/config')
      expect([config2.escrow, config2.verifier]).toEqual([config1.escrow, config1.verifier])
      expect(config2.escrow).toMatch(/^0x[0-9a-fA-F]{40}$/)
      expect(info2.out).toEqual(info1.out)
      expect(second.services.keys.operatorToken).toBe(operatorToken)
      const bal = await second.call('/api/base/balance', { query: { owner } })
      expect(bal.tokens.PUSD.raw).toBe('42000000000000000001')
      // The partner key created before the restart still validates.
      const r = await second.raw(`/api/base/confirm?hash=0x${'11'.repeat(32)}`, { headers: { 'x-api-key': key } })
      expect(r.status).toBe(200)
    } finally {
      await second.close({ keepData: true })
    }

    const fresh = await startTestDaemon({ dataDir, flags: { fresh: true } })
    try {
      expect(fresh.services.keys.operatorToken).not.toBe(operatorToken)
      const bal = await fresh.call('/api/base/balance', { query: { owner } })
      expect(bal.tokens.PUSD.raw).toBe('0')
    } finally {
      await fresh.close()
    }
    // Three daemon starts, two of them deploying every embedded contract: slow on a loaded machine.
  }, 180_000)
})
