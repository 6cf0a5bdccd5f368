import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createPublicClient } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leanRpc } from './evm/lean-transport.js'
import { rpcEndpoint, rpcHttp, solanaConnection } from './rpc-auth.js'

/** A node on 127.0.0.1 that records the Authorization header and path of each call, answering 1 to anything. */
let server: Server
let port = 0
const seen: { auth?: string; path?: string }[] = []
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, path: req.url })
      const { id } = JSON.parse(body) as { id: number }
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

const basic = `Basic ${Buffer.from('me:p@ss word').toString('base64')}`
const url = () => `http://me:p%40ss%20word@127.0.0.1:${port}/v2/key?x=1`

describe('an RPC URL with userinfo', () => {
  it('becomes the URL without it and a Basic authorization header (percent-decoded)', () => {
    expect(rpcEndpoint('https://me:p%40ss@rpc.example/v1')).toEqual({
      url: 'https://rpc.example/v1',
      headers: { authorization: `Basic ${Buffer.from('me:p@ss').toString('base64')}` },
    })
    expect(rpcEndpoint('https://rpc.example/v1?k=2')).toEqual({ url: 'https://rpc.example/v1?k=2', headers: {} })
  })

  it("is sent as Basic auth by viem's http transport, the lean transport and a Solana connection", async () => {
    seen.length = 0
    await createPublicClient({ transport: rpcHttp(url()) }).getChainId()
    const lean = leanRpc(url())
    await lean.request({ method: 'eth_chainId' })
    await lean.close()
    await solanaConnection(url())
      .getSlot()
      .catch(() => {}) // the answer's shape is Solana's concern; the header is ours
    expect(seen).toHaveLength(3)
    for (const s of seen) expect(s).toEqual({ auth: basic, path: '/v2/key?x=1' })
  })
})
