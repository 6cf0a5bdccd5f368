import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'

const dataDir = mkdtempSync(join(tmpdir(), 'parx-chains-cli-'))
let child: ChildProcess | undefined
afterAll(async () => {
  // A failed assertion must not leave the chains running.
  if (child && child.exitCode === null) {
    const gone = new Promise((r) => child!.once('exit', r))
    child.kill('SIGTERM')
    await gone
  }
  rmSync(dataDir, { recursive: true, force: true })
})

const rpc = (url: string, method: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
  }).then((r) => r.json() as Promise<{ result: unknown }>)
const anvilPids = () =>
  readdirSync(join(dataDir, 'chains'))
    .filter((f) => f.endsWith('.pid'))
    .map((f) => Number(readFileSync(join(dataDir, 'chains', f), 'utf8')))

describe('parx chains --as testnet', () => {
  it('prints the RPC URLs, every address as serve.rpc / serve.contracts and PARX_* lines, presents the testnet ids, and stops everything on SIGINT', async () => {
    child = spawn(
      process.execPath,
      ['bin/parx.js', '--output', 'json', 'chains', '--as', 'testnet', '--port', '0', '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child!.stdout! }).once('line', resolve)
      child!.once('exit', (code) => reject(new Error(`chains exited ${code}: ${stderr}`)))
    })
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)))
    const ready = JSON.parse(line)
    expect(ready).toMatchObject({ ready: true, as: 'testnet', dataDir })
    expect(Object.keys(ready.rpc).sort()).toEqual(['base-sepolia', 'radius-testnet', 'solana-devnet'])
    expect(ready.serve).toEqual({ profile: 'testnet', rpc: ready.rpc, contracts: ready.contracts })
    expect(Object.keys(ready.contracts['base-sepolia'])).toEqual(
      expect.arrayContaining([
        'USDC',
        'PUSD',
        'XUSD',
        'router',
        'escrow',
        'verifier',
        'outputSettler',
        'pair:PUSD/USDC',
      ]),
    )
    // x402 batch-settlement and auth-capture at the canonical addresses the official clients sign for, on both EVM chains.
    for (const net of ['base-sepolia', 'radius-testnet']) {
      expect(ready.contracts[net]).toMatchObject({
        batchSettlement: '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003',
        erc3009DepositCollector: '0x4020806089470a89826cB9fB1f4059150b550004',
        permit2DepositCollector: '0x4020425FAf3B746C082C2f942b4E5159887B0005',
        // x402 auth-capture: v1.1 (the official client's default) and v1.0.
        authCaptureEscrow: '0xf96815976523E00e65Be8f34cA5e64b4f41EB19c',
        authCaptureErc3009Collector: '0x8612dfdc421f80336cd14E8EF9cb1E765dB5ab88',
        authCapturePermit2Collector: '0xD69831Aed5bfe262067ec4c751f4F830EcdD446e',
        authCaptureOperatorRefundCollector: '0x7a03443724d14798c4AB4622F1DAAcA761Fea486',
        authCaptureEscrowV1_0: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff',
        authCaptureErc3009CollectorV1_0: '0x0E3dF9510de65469C4518D7843919c0b8C7A7757',
        authCapturePermit2CollectorV1_0: '0x992476B9Ee81d52a5BdA0622C333938D0Af0aB26',
        authCaptureOperatorRefundCollectorV1_0: '0x934907bffd0901b6A21e398B9C53A4A38F02fa5d',
      })
      for (const name of [
        'batchSettlement',
        'authCaptureEscrow',
        'authCaptureEscrowV1_0',
        'authCaptureErc3009Collector',
      ]) {
        const code = await fetch(ready.rpc[net], {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'eth_getCode',
            params: [ready.contracts[net][name], 'latest'],
          }),
        })
        expect(((await code.json()) as { result: string }).result.length, name).toBeGreaterThan(1000)
      }
    }
    expect(Object.keys(ready.contracts['solana-devnet'])).toEqual(
      expect.arrayContaining(['USDC', 'PUSD', 'originSettler', 'destSettler']),
    )
    expect(ready.env).toMatchObject({
      PARX_PROFILE: 'testnet',
      PARX_RPC_BASE_SEPOLIA: ready.rpc['base-sepolia'],
      PARX_CONTRACTS_BASE_SEPOLIA: JSON.stringify(ready.contracts['base-sepolia']),
    })
    expect((await rpc(ready.rpc['base-sepolia'], 'eth_chainId')).result).toBe('0x14a34') // 84532
    expect((await rpc(ready.rpc['radius-testnet'], 'eth_chainId')).result).toBe('0x11a98') // 72344
    expect((await rpc(ready.rpc['solana-devnet'], 'getGenesisHash')).result).toBe(
      'EtWTRABZaYq6iMfeYKouRu166VU2xqa1iZbV4zxDkYJ',
    )
    const minted = await fetch(ready.faucet, {
      method: 'POST',
      body: JSON.stringify({ network: 'base-sepolia', to: ready.accounts.solver, token: 'USDC', amount: '1' }),
    })
    expect(minted.status).toBe(200)
    const bad = await fetch(ready.faucet, { method: 'POST', body: '{' })
    expect(bad.status).toBe(400)
    const pids = anvilPids()
    expect(pids).toHaveLength(2)
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    for (const pid of pids) expect(existsSync(`/proc/${pid}`), `anvil ${pid} still running`).toBe(false)
    await expect(rpc(ready.rpc['solana-devnet'], 'getHealth')).rejects.toThrow()
  })
})

describe('parx chains on the same data dir', () => {
  it('keeps its contracts, keys and balances across a restart', async () => {
    const { startStandaloneChains } = await import('../daemon/chains/standalone.js')
    const dir = mkdtempSync(join(tmpdir(), 'parx-chains-restart-'))
    try {
      const first = await startStandaloneChains({ as: 'local', dataDir: dir, port: 0 })
      const to = '0x00000000000000000000000000000000000000a1'
      let minted
      try {
        minted = await fetch(first.faucetUrl, {
          method: 'POST',
          body: JSON.stringify({ network: 'local-base', to, token: 'USDC', amount: '7' }),
        })
      } finally {
        await first.stop()
      }
      expect(minted.status).toBe(200)
      const second = await startStandaloneChains({ as: 'local', dataDir: dir, port: 0 })
      try {
        expect(second.contracts).toEqual(first.contracts)
        expect(second.env.PARX_SOLVER_KEY).toBe(first.env.PARX_SOLVER_KEY)
        const data = `0x70a08231${to.slice(2).padStart(64, '0')}` // balanceOf(to)
        const res = await fetch(second.rpc['local-base']!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'eth_call',
            params: [{ to: second.contracts['local-base']!.USDC, data }, 'latest'],
          }),
        }).then((r) => r.json() as Promise<{ result: string }>)
        expect(BigInt(res.result)).toBe(7_000_000n)
      } finally {
        await second.stop()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
