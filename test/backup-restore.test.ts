import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, type PublicKey } from '@solana/web3.js'
import Sqlite from 'better-sqlite3'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { runParx } from './helpers/cli.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

/**
 * `parx backup` of a running daemon after money moved on all three embedded chains and through the
 * platform ledger, then `parx restore` into a new data dir: the restored daemon sees the same
 * balances on chain and the same ledger, and goes on moving money (its nonces and outbox agree
 * with the restored chains). A non-empty data dir is refused and left as it was.
 */
const dirs: string[] = []
const daemons: TestDaemon[] = []
afterAll(async () => {
  for (const d of daemons) await d.close({ keepData: true }).catch(() => {})
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'parx-backup-'))
  dirs.push(dir)
  return dir
}

const fresh = () => privateKeyToAccount(generatePrivateKey()).address

async function balances(d: TestDaemon, who: { radius: Address[]; base: Address[]; sol: PublicKey }) {
  const erc20 = (network: 'radius' | 'base', owner: Address) => {
    const chain = d.services[network]
    return chain.client.readContract({
      address: chain.tokens.PUSD!.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner],
    })
  }
  const conn = new Connection(d.urls.rpc['local-solana']!, 'confirmed')
  const ata = getAssociatedTokenAddressSync(d.services.solana.mints.PUSD!.mint, who.sol)
  return {
    radius: await Promise.all(who.radius.map((a) => erc20('radius', a).then(String))),
    base: await Promise.all(who.base.map((a) => erc20('base', a).then(String))),
    sol: (await conn.getTokenAccountBalance(ata)).value.amount,
  }
}

describe('parx backup and parx restore', () => {
  it('round-trips a running daemon with money on the chains and in the ledger', async () => {
    const src = await startTestDaemon()
    daemons.push(src)
    const op = createPlatformClient({ url: src.urls.platform, operatorToken: src.services.keys.operatorToken })
    const { userKey } = await op.createUser({ body: { name: 'backed-up' } })
    const user = createPlatformClient({ url: src.urls.platform, userKey })
    const agent = await user.createAgent({ body: { name: 'radius', network: 'local-radius' } })
    const { agentKey } = await user.createAgentKey({ params: { id: agent.id }, body: {} })
    const client = createPlatformClient({ url: src.urls.platform, agentKey })
    const faucet = (network: string, to: string, amount: string) =>
      src.call('/api/local/faucet', { body: { network, to, token: 'PUSD', amount } })
    await faucet('local-radius', agent.wallet, '10')
    const to = fresh()
    await client.send({ params: { id: agent.id }, body: { to, amount: '2.5' } })
    const baseOwner = fresh()
    await faucet('local-base', baseOwner, '7')
    const solOwner = Keypair.generate().publicKey
    await faucet('local-solana', solOwner.toBase58(), '3.25')
    const who = { radius: [agent.wallet as Address, to], base: [baseOwner], sol: solOwner }
    const before = await balances(src, who)
    // PUSD has 6 decimals on local-radius, 18 on local-base, 9 on local-solana.
    expect(before).toEqual({ radius: ['7500000', '2500000'], base: ['7000000000000000000'], sol: '3250000000' })
    const limitsBefore = await client.getLimits({ params: { id: agent.id } })
    expect(limitsBefore.spentTodayUsd).toBe('2.5')

    // While the daemon runs: the daemon takes the copy (chains first, then the store).
    const file = join(tmp(), 'parx.tar.gz')
    const backedUp = await runParx(src.urls.api, ['-o', 'json', 'backup', '--to', file, '--data-dir', src.dataDir])
    expect(backedUp.err).toBe('')
    expect(backedUp.code).toBe(0)
    const out = JSON.parse(backedUp.out)
    expect(out).toMatchObject({ file, taken: 'live' })
    expect(out.files).toEqual(
      expect.arrayContaining(['parx.db', 'keys.json', 'chains/local-base.json', 'chains/local-radius.json']),
    )
    expect(statSync(file).mode & 0o077).toBe(0)
    // The archive was moved out of the data dir, not left in it.
    expect(readdirSync(join(src.dataDir, 'backups'))).toEqual([])
    // Never over an existing file.
    expect((await runParx(src.urls.api, ['backup', '--to', file, '--data-dir', src.dataDir])).code).not.toBe(0)

    // What happens after the backup is not in it.
    await faucet('local-base', baseOwner, '100')
    await src.close({ keepData: true })

    // A stopped daemon's data dir is copied from its files, under its lock.
    const stoppedFile = join(tmp(), 'stopped.tar.gz')
    const offline = await runParx(src.urls.api, [
      '-o',
      'json',
      'backup',
      '--to',
      stoppedFile,
      '--data-dir',
      src.dataDir,
    ])
    expect(offline.code).toBe(0)
    expect(JSON.parse(offline.out)).toMatchObject({ taken: 'stopped' })
    expect(JSON.parse(offline.out).files).toEqual(
      expect.arrayContaining(['parx.db', 'keys.json', 'chains/local-base.json', 'chains/local-radius.json']),
    )

    // A non-empty data dir is refused with its code, and left exactly as it was.
    const busy = tmp()
    writeFileSync(join(busy, 'notes.txt'), 'mine')
    const refused = await runParx(src.urls.api, ['-o', 'json', 'restore', '--from', file, '--data-dir', busy])
    expect(refused.code).not.toBe(0)
    expect(JSON.parse(refused.err || refused.out).code).toBe('DATA_DIR_NOT_EMPTY')
    expect(readdirSync(busy)).toEqual(['notes.txt'])

    const target = join(tmp(), 'restored')
    const restored = await runParx(src.urls.api, ['-o', 'json', 'restore', '--from', file, '--data-dir', target])
    expect(restored.code).toBe(0)
    expect(existsSync(join(target, 'parx.db'))).toBe(true)
    expect(statSync(target).mode & 0o077).toBe(0)

    const back = await startTestDaemon({ dataDir: target })
    daemons.push(back)
    expect(await balances(back, who)).toEqual(before)
    const again = createPlatformClient({ url: back.urls.platform, agentKey })
    expect((await again.getLimits({ params: { id: agent.id } })).spentTodayUsd).toBe('2.5')
    expect((await again.balance({ params: { id: agent.id } })).tokens).toEqual([
      { symbol: 'PUSD', decimals: 6, amount: '7.5', raw: '7500000' },
    ])
    // Money moves on from the restored state: the agent's wallet key and the service's nonces agree with the chains.
    await again.send({ params: { id: agent.id }, body: { to, amount: '1' } })
    expect(await balances(back, who)).toEqual({ ...before, radius: ['6500000', '3500000'] })
    await back.call('/api/local/faucet', { body: { network: 'local-base', to: baseOwner, token: 'PUSD', amount: '1' } })
    expect((await balances(back, who)).base).toEqual(['8000000000000000000'])
    await back.close({ keepData: true })

    // The stopped daemon's copy holds what happened after the live one: the second base mint.
    const target2 = join(tmp(), 'restored-stopped')
    expect((await runParx(src.urls.api, ['restore', '--from', stoppedFile, '--data-dir', target2])).code).toBe(0)
    const back2 = await startTestDaemon({ dataDir: target2 })
    daemons.push(back2)
    expect(await balances(back2, who)).toEqual({ ...before, base: ['107000000000000000000'] })
  }, 300_000)

  it("copies a stopped data dir whose lock names a pid now another program's", async () => {
    // The daemon was killed and its pid reused: `parx backup` reads the lock as `parx serve` does
    // (daemon/startup/lock.ts), so it does not call a daemon that is gone.
    const dataDir = tmp()
    new Sqlite(join(dataDir, 'parx.db')).exec('create table t (x integer)').close()
    const other = spawn('sleep', ['30'], { stdio: 'ignore' })
    try {
      await new Promise((resolve) => other.once('spawn', resolve))
      writeFileSync(join(dataDir, 'parx.lock'), JSON.stringify({ pid: other.pid, url: 'http://127.0.0.1:9' }))
      const file = join(tmp(), 'reused.tar.gz')
      const r = await runParx('http://127.0.0.1:9', ['-o', 'json', 'backup', '--to', file, '--data-dir', dataDir])
      expect(r.err).toBe('')
      expect(JSON.parse(r.out)).toMatchObject({ taken: 'stopped', files: ['parx.db'] })
      expect(existsSync(join(dataDir, 'parx.lock'))).toBe(false)
    } finally {
      other.kill()
    }
  })

  it('refuses a file that is not a parx backup, leaving the data dir absent', async () => {
    const dir = tmp()
    const bogus = join(dir, 'bogus.tar.gz')
    writeFileSync(bogus, 'not a tarball')
    const target = join(dir, 'never')
    const r = await runParx('http://127.0.0.1:9', ['-o', 'json', 'restore', '--from', bogus, '--data-dir', target])
    expect(JSON.parse(r.err || r.out).code).toBe('BACKUP_INVALID')
    expect(existsSync(target)).toBe(false)
    mkdirSync(target)
  })
})
