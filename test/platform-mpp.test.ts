import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { evm, Mppx } from 'mppx/server'
import { type Address, createWalletClient, erc20Abi, type Hex, http, parseAbi, parseEther, parseSignature } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient, type PlatformClient } from '../src/sdk/platform/client.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { randomAddress } from './helpers/x402.js'

/**
 * pay over MPP (`WWW-Authenticate: Payment`) against stock mppx sellers: one whose evm charge
 * settles through our facilitator (x402 /verify and /settle, EIP-3009), one that settles itself
 * with its own gas-paying key. The agent (0 ETH) pays in USDC; unsupported MPP methods, limits and
 * a seller failing after an MPP payment (mppx settles before the handler: charged) are checked.
 */
let d: TestDaemon
let user: PlatformClient
const servers: Server[] = []
const payToFac: Address = randomAddress()
const payToSelf = randomAddress()
const PRICE = 10_000n // 0.01 USDC

async function serve(handler: RequestListener): Promise<string> {
  const s = createServer(handler)
  servers.push(s)
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`
}
let facSeller: string
let selfSeller: string

beforeAll(async () => {
  d = await startTestDaemon()
  const op = createPlatformClient({ url: d.urls.platform, operatorToken: d.services.keys.operatorToken })
  user = createPlatformClient({
    url: d.urls.platform,
    userKey: (await op.createUser({ body: { name: 'mpp buyer' } })).userKey,
  })
  const chain = d.services.base
  const usdc = chain.tokens.USDC!
  const common = { currency: usdc.address, chainId: chain.chainId, decimals: 6, authorization: usdc.permitDomain! }
  // The stock mppx seller pointed at our facilitator: verify and settle are ours.
  const viaFacilitator = Mppx.create({
    secretKey: 'a'.repeat(64),
    realm: 'fac-seller',
    methods: [evm.charge({ ...common, recipient: payToFac, x402: { facilitator: d.urls.facilitator } })],
  })
  // The stock mppx seller settling itself: transferWithAuthorization sent from its own funded key.
  const relayer = privateKeyToAccount(generatePrivateKey())
  await chain.client.request({
    method: 'anvil_setBalance' as never,
    params: [relayer.address, `0x${parseEther('1').toString(16)}`] as never,
  })
  const wallet = createWalletClient({ account: relayer, chain: chain.client.chain, transport: http(chain.rpcUrl) })
  const selfSettling = Mppx.create({
    secretKey: 'b'.repeat(64),
    realm: 'self-seller',
    methods: [
      evm.charge({
        ...common,
        recipient: payToSelf,
        async settle({ payload }) {
          const { v, r, s } = parseSignature(payload.signature as Hex)
          const hash = await wallet.writeContract({
            address: usdc.address,
            chain: chain.client.chain,
            abi: parseAbi([
              'function transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)',
            ]),
            functionName: 'transferWithAuthorization',
            args: [
              payload.from as Address,
              payload.to as Address,
              BigInt(payload.value),
              BigInt(payload.validAfter),
              BigInt(payload.validBefore),
              payload.nonce as Hex,
              Number(v),
              r,
              s,
            ],
          })
          await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
          return { reference: hash }
        },
      }),
    ],
  })
  const route = (mppx: typeof viaFacilitator) => async (req: IncomingMessage, res: ServerResponse) => {
    const result = await Mppx.toNodeListener(mppx.charge({ amount: '0.01', description: 'a report' }))(req, res)
    if (result.status === 402) return
    if (req.url === '/fails') {
      res.statusCode = 500
      return void res.end(JSON.stringify({ error: 'handler failed after payment' }))
    }
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ data: `mpp report from ${req.url}` }))
  }
  facSeller = await serve(route(viaFacilitator))
  selfSeller = await serve(route(selfSettling))
}, 120_000)
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r))
  await d?.close()
})

const bal = (owner: Address, symbol = 'USDC') => {
  const chain = d.services.base
  return chain.client.readContract({
    address: chain.tokens[symbol]!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
}
async function buyer(network = 'local-base') {
  const a = await user.createAgent({ body: { name: 'mpp', network } })
  await d.call('/api/local/faucet', { body: { network, to: a.wallet, token: 'USDC', amount: '1' } })
  const { agentKey } = await user.createAgentKey({ params: { id: a.id }, body: {} })
  return { a, agentKey, client: createPlatformClient({ url: d.urls.platform, agentKey }) }
}
const pay = (id: string, agentKey: string, body: unknown) =>
  d.raw(`/api/agents/${id}/pay`, {
    method: 'POST',
    headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('pay (MPP, stock mppx sellers)', () => {
  it('pays a stock mppx seller that settles through our facilitator, and one that settles itself; balances exact; 0 ETH', async () => {
    const { a, client } = await buyer()
    const dry = await client.pay({
      params: { id: a.id },
      body: { url: `${facSeller}/report`, protocol: 'mpp', dryRun: true },
    })
    expect(dry).toMatchObject({
      dryRun: true,
      price: { protocol: 'mpp', amount: '0.01', token: 'USDC', network: 'local-base', payTo: payToFac },
    })
    const r = await client.pay({
      params: { id: a.id },
      body: { url: `${facSeller}/report`, protocol: 'mpp', maxAmount: '0.01' },
    })
    if (r.dryRun) throw new Error('not a dry run')
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body)).toEqual({ data: 'mpp report from /report' })
    expect(r.receipt).toMatchObject({
      protocol: 'mpp',
      amount: '0.01',
      token: 'USDC',
      network: 'local-base',
      payer: a.wallet,
      payTo: payToFac,
    })
    // The platform's signed receipt of an MPP charge names the transfer's transaction.
    expect(r.receipt!.signed!.message).toMatchObject({
      protocol: 'mpp',
      transaction: r.receipt!.transaction,
      payTo: payToFac,
      symbol: 'USDC',
      amount: '10000',
      agentWallet: a.wallet,
    })
    const tx = await d.services.base.client.getTransactionReceipt({ hash: r.receipt!.transaction as Hex })
    expect(tx.status).toBe('success')
    expect(await bal(payToFac)).toBe(PRICE)
    const s = await client.pay({ params: { id: a.id }, body: { url: `${selfSeller}/report`, protocol: 'mpp' } })
    if (s.dryRun) throw new Error('not a dry run')
    expect(s.receipt).toMatchObject({ protocol: 'mpp', amount: '0.01', token: 'USDC', payTo: payToSelf })
    expect(await bal(payToSelf)).toBe(PRICE)
    // By default x402 comes first: mppx's evm charge also offers x402 (PAYMENT-REQUIRED), settled by our facilitator.
    const x = await client.pay({ params: { id: a.id }, body: { url: `${facSeller}/report` } })
    if (x.dryRun) throw new Error('not a dry run')
    expect(x.receipt).toMatchObject({ protocol: 'x402-v2', amount: '0.01', token: 'USDC', payTo: payToFac })
    expect(await bal(payToFac)).toBe(2n * PRICE)
    expect(await bal(a.wallet)).toBe(1_000_000n - 3n * PRICE)
    expect(await d.services.base.client.getBalance({ address: a.wallet })).toBe(0n)
    expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.03')
  }, 60_000)

  it('over the limit and above maxAmount: refused before signing, nothing moved', async () => {
    const { a, agentKey } = await buyer()
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: '0.005' } })
    const before = await bal(payToFac)
    const over = await pay(a.id, agentKey, { url: `${facSeller}/report` })
    expect([over.status, over.body]).toMatchObject([
      403,
      { code: 'LIMIT_EXCEEDED', limit: 'perPayment', limitUsd: '0.005', amountUsd: '0.01' },
    ])
    await user.setLimits({ params: { id: a.id }, body: { perPaymentUsd: null } })
    const max = await pay(a.id, agentKey, { url: `${facSeller}/report`, maxAmount: '0.001' })
    expect([max.status, max.body.code]).toEqual([409, 'PRICE_ABOVE_MAX'])
    expect(await bal(a.wallet)).toBe(1_000_000n)
    expect(await bal(payToFac)).toBe(before)
  })

  it('a stock mppx seller that fails after payment: mppx settles before its handler, so the agent is charged and told so', async () => {
    const { a, client } = await buyer()
    const r = await client.pay({ params: { id: a.id }, body: { url: `${facSeller}/fails`, protocol: 'mpp' } })
    if (r.dryRun) throw new Error('not a dry run')
    expect(r.status).toBe(500)
    expect(r.receipt).toMatchObject({ protocol: 'mpp', amount: '0.01', token: 'USDC' })
    expect(await bal(a.wallet)).toBe(1_000_000n - PRICE)
    expect((await client.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0.01')
  })

  it('an agent on another network, an unsupported MPP method, a malformed challenge: clear errors, nothing paid', async () => {
    const radius = await buyer('local-radius')
    const other = await pay(radius.a.id, radius.agentKey, { url: `${facSeller}/report` })
    expect([other.status, other.body.code]).toEqual([422, 'SELLER_METHOD_UNSUPPORTED'])
    expect(other.body.error).toContain('mpp evm/charge on eip155:')
    const { a, agentKey } = await buyer()
    const request = Buffer.from(JSON.stringify({ amount: '1000', currency: 'sat' })).toString('base64url')
    const odd = await serve((req, res) => {
      res.statusCode = 402
      res.setHeader(
        'WWW-Authenticate',
        req.url === '/bad'
          ? 'Payment id='
          : `Payment id="c1", realm="x", method="lightning", intent="charge", request="${request}"`,
      )
      res.end()
    })
    const lightning = await pay(a.id, agentKey, { url: `${odd}/lightning` })
    expect([lightning.status, lightning.body.code]).toEqual([422, 'SELLER_METHOD_UNSUPPORTED'])
    expect(lightning.body.error).toContain('mpp lightning/charge')
    const bad = await pay(a.id, agentKey, { url: `${odd}/bad` })
    expect([bad.status, bad.body.code]).toEqual([502, 'SELLER_TERMS_MALFORMED'])
    expect(await bal(a.wallet)).toBe(1_000_000n)
    expect((await user.getLimits({ params: { id: a.id } })).spentTodayUsd).toBe('0')
  })
})
