import { getAssociatedTokenAddressSync } from '@solana/spl-token'
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js'
import { type Address, erc20Abi, getAddress, maxUint256, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as AttestationVerifierMofN from '../contracts/evm/artifacts/AttestationVerifierMofN.js'
import * as SourceEscrow from '../contracts/evm/artifacts/SourceEscrow.js'
import { readiness } from '../src/sdk/discovery/readiness.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'

let d: TestDaemon
beforeAll(async () => {
  d = await startTestDaemon()
})
afterAll(async () => d?.close())

const isAddress = (v: unknown) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v)

describe('GET /api/health', () => {
  it('answers ok with a millisecond timestamp', async () => {
    const before = Date.now()
    const h = await d.call('/api/health')
    expect(h.ok).toBe(true)
    expect(Number.isInteger(h.ts)).toBe(true)
    expect(h.ts).toBeGreaterThanOrEqual(before)
  })
})

describe('GET /api/base/info', () => {
  it('has every field of docs/swap-api.md "Discovery and balances" with live inventory and allowance', async () => {
    const info = await d.call('/api/base/info')
    expect(info.chainId).toBe(d.services.base.chainId)
    for (const k of ['solver', 'router', 'usdc']) expect(isAddress(info[k]), k).toBe(true)
    expect(info.solver).toBe(d.services.accounts.solver)
    expect(info.usdcDec).toBe(6)
    expect(info.usdcName).toBe('USD Coin')
    expect(info.usdcVersion).toBe('2')
    expect(Object.keys(info.out).sort()).toEqual(['PUSD', 'XUSD'])
    expect(info.out.PUSD.dec).toBe(18)
    expect(info.out.XUSD.dec).toBe(6)
    for (const sym of ['PUSD', 'XUSD']) {
      const o = info.out[sym]
      expect(isAddress(o.addr)).toBe(true)
      expect(o.inventory).toBe(1_000_000)
      expect(o.routerAllowance).toBeGreaterThan(1e20)
      const r = info.redeemInputs[sym]
      expect(r).toMatchObject({ addr: o.addr, dec: o.dec, cap: sym })
      expect(r.permitDomain).toEqual({
        name: expect.any(String),
        version: expect.any(String),
        chainId: info.chainId,
        verifyingContract: o.addr,
      })
    }
    expect(info.redeemInputs.PUSD.permitDomain.name).not.toBe(info.redeemInputs.XUSD.permitDomain.name)
    expect(info.max === null || typeof info.max === 'number').toBe(true)
    expect(info.rate).toBe(1)
  })

  it('reports the permit domains the token contracts really use', async () => {
    const info = await d.call('/api/base/info')
    const abi = [
      {
        type: 'function',
        name: 'eip712Domain',
        stateMutability: 'view',
        inputs: [],
        outputs: [
          { type: 'bytes1' },
          { type: 'string' },
          { type: 'string' },
          { type: 'uint256' },
          { type: 'address' },
          { type: 'bytes32' },
          { type: 'uint256[]' },
        ],
      },
    ] as const
    for (const sym of ['PUSD', 'XUSD']) {
      const [, name, version, chainId, verifying] = await d.services.base.client.readContract({
        address: info.redeemInputs[sym].addr,
        abi,
        functionName: 'eip712Domain',
      })
      expect({ name, version, chainId: Number(chainId), verifyingContract: verifying }).toEqual(
        info.redeemInputs[sym].permitDomain,
      )
    }
  })

  it('inventory is live: it moves when the solver receives tokens', async () => {
    const before = (await d.call('/api/base/info')).out.XUSD.inventory
    await d.call('/api/local/faucet', { body: { to: d.services.accounts.solver, token: 'XUSD', amount: '250.5' } })
    d.services.reads.invalidate()
    expect((await d.call('/api/base/info')).out.XUSD.inventory).toBe(before + 250.5)
  })
})

describe('GET /api/base/balance', () => {
  it('reports raw exact to the last unit at 18 decimals', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address
    await d.call('/api/local/faucet', { body: { to: owner, token: 'PUSD', amount: '123.456789012345678901' } })
    await d.call('/api/local/faucet', { body: { to: owner, token: 'USDC', amount: '7.25' } })
    const b = await d.call('/api/base/balance', { query: { owner: owner.toLowerCase() } })
    expect(b.owner).toBe(getAddress(owner))
    expect(b.eth).toBe(0)
    expect(b.tokens.PUSD).toEqual({ ui: 123.45678901234568, raw: '123456789012345678901', dec: 18 })
    expect(b.tokens.USDC).toEqual({ ui: 7.25, raw: '7250000', dec: 6 })
    expect(b.tokens.XUSD.raw).toBe('0')
    expect([b.usdc, b.usdcRaw, b.usdcDec]).toEqual([7.25, '7250000', 6])
    expect([b.pusd, b.pusdRaw, b.pusdDec]).toEqual([123.45678901234568, '123456789012345678901', 18])
    const onChain = await d.services.base.client.readContract({
      address: d.services.base.tokens.PUSD!.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [owner as Address],
    })
    expect(onChain).toBe(parseUnits('123.456789012345678901', 18))
  })

  it('names the bad parameter', async () => {
    const missing = await d.raw('/api/base/balance')
    expect(missing.status).toBe(400)
    expect(missing.body).toEqual({
      error: "missing query parameter 'owner'",
      code: 'BAD_REQUEST',
      requestId: expect.any(String),
    })
    const bad = await d.raw('/api/base/balance?owner=0x1234')
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('BAD_REQUEST')
    expect(bad.body.error).toMatch(/'owner'.*not an EVM address/)
  })
})

describe('GET /api/config, /api/capabilities, /api/readiness', () => {
  it('config reports the service without secrets', async () => {
    const c = await d.call('/api/config')
    expect(c.profile).toBe('local')
    expect(c.router).toBe(d.services.base.contracts.router)
    expect(c.chainId).toBe(d.services.base.chainId)
    expect(c.urls.facilitator).toBe(`${d.urls.api}/facilitator`)
    expect(Object.keys(c.urls.rpc).sort()).toEqual(['local-base', 'local-radius', 'local-solana'])
    expect(JSON.stringify(c)).not.toContain(d.services.keys.operatorToken)
    expect(JSON.stringify(c)).not.toContain(d.services.keys.solver.slice(2))
  })

  it('config reports the cross-chain escrow and verifier, deployed with the three attestors at threshold 2', async () => {
    const c = await d.call('/api/config')
    const { client, contracts, tokens } = d.services.base
    const { keys } = d.services
    expect(isAddress(c.escrow) && isAddress(c.verifier)).toBe(true)
    expect([c.escrow, c.verifier]).toEqual([contracts.escrow, contracts.verifier])
    expect(c.outputSettler).toBe(contracts.outputSettler)
    // The Solana side: the programs the embedded cluster loaded, by id.
    expect(c.solanaPrograms.originSettler).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    expect(c.solanaPrograms.destSettler).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    const info = await new Connection(d.urls.rpc['local-solana']!).getAccountInfo(
      new PublicKey(c.solanaPrograms.originSettler),
    )
    expect(info?.executable).toBe(true)
    const read = (address: Address, abi: readonly unknown[], functionName: string, args: unknown[] = []) =>
      client.readContract({ address, abi, functionName, args } as never) as Promise<unknown>
    expect(await read(c.escrow, SourceEscrow.abi, 'verifier')).toBe(c.verifier)
    expect(await read(c.verifier, AttestationVerifierMofN.abi, 'attestors')).toEqual(
      keys.attestors.map((k) => privateKeyToAccount(k).address),
    )
    expect(await read(c.verifier, AttestationVerifierMofN.abi, 'threshold')).toBe(2n)
    expect(await read(c.verifier, AttestationVerifierMofN.abi, 'owner')).toBe(
      privateKeyToAccount(keys.deployer).address,
    )
    // The output settler is recorded too, and the solver can deliver through it.
    const settler = contracts.outputSettler!
    expect(await client.getCode({ address: settler })).toMatch(/^0x[0-9a-f]{2,}/)
    for (const t of Object.values(tokens)) {
      expect(await read(t.address, erc20Abi, 'allowance', [d.services.accounts.solver, settler]), t.symbol).toBe(
        maxUint256,
      )
    }
  })

  it('capabilities list every flow with its state and routes', async () => {
    const c = await d.call('/api/capabilities')
    expect(c.flows['base.swap']).toEqual({
      enabled: true,
      routes: expect.arrayContaining([expect.stringContaining('/api/base/swap')]),
    })
    expect(c.flows.faucet.enabled).toBe(true)
  })

  it('readiness checks the store and each chain', async () => {
    const r = await d.call('/api/readiness')
    expect(r.ready).toBe(true)
    expect(Object.keys(r.checks).sort()).toEqual(['local-base', 'local-radius', 'local-solana', 'store'])
    for (const c of Object.values<any>(r.checks)) expect(c).toMatchObject({ ok: true, ms: expect.any(Number) })
    // The wire contract, with this process' role: one process on its data dir leads (issue 28).
    expect(readiness.parse(r)).toMatchObject({ role: 'all', leader: true })
  })

  it('GET /api/openapi.json is the OpenAPI 3.1 document of the routes, generated on first request', async () => {
    const res = await d.raw('/api/openapi.json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    expect(res.body).toMatchObject({ openapi: '3.1.0', info: { title: 'parx' } })
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/api/readiness', '/api/openapi.json', '/api/agents/{id}/pay', '/paid/{id}']),
    )
    // The same document on the next request (kept, not rebuilt).
    expect((await d.raw('/api/openapi.json')).body).toEqual(res.body)
  })
})

describe('local faucet', () => {
  it('mints on local-radius and local-solana too, and refuses unknown tokens', async () => {
    const evm = privateKeyToAccount(generatePrivateKey()).address
    await d.call('/api/local/faucet', { body: { network: 'local-radius', to: evm, token: 'PUSD', amount: '5' } })
    const pusd = d.services.radius.tokens.PUSD!
    expect(
      await d.services.radius.client.readContract({
        address: pusd.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [evm],
      }),
    ).toBe(5_000_000n)
    const unknown = await d.raw('/api/local/faucet', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: evm, token: 'DOGE' }),
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.code).toBe('UNKNOWN_TOKEN')
  })

  it('mints SOL and SPL tokens on local-solana, exact at the mint decimals', async () => {
    const owner = Keypair.generate().publicKey
    await d.call('/api/local/faucet', {
      body: { network: 'local-solana', to: owner.toBase58(), token: 'PUSD', amount: '1.000000001' },
    })
    await d.call('/api/local/faucet', {
      body: { network: 'local-solana', to: owner.toBase58(), token: 'SOL', amount: '2' },
    })
    const conn = new Connection(d.urls.rpc['local-solana']!, 'confirmed')
    const ata = getAssociatedTokenAddressSync(d.services.solana.mints.PUSD!.mint, owner)
    expect((await conn.getTokenAccountBalance(ata)).value.amount).toBe('1000000001')
    expect(await conn.getBalance(owner)).toBe(2 * LAMPORTS_PER_SOL)
    const bad = await d.raw('/api/local/faucet', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'local-solana', to: '0xabc', token: 'PUSD' }),
    })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('BAD_REQUEST')
  })
})
