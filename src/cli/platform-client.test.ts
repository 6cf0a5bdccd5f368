import { createServer, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../sdk/http-errors.js'
import { CliError } from './errors.js'
import { createCliPlatform } from './platform-client.js'

const AGENT_ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'
const KEY_ID = '5a5a5a5a-1111-4222-8333-944455556666'
type Seen = { method: string; url: string; headers: Record<string, string | string[] | undefined>; body: string }
const seen: Seen[] = []
let answer: { status: number; body: string } = { status: 200, body: '{}' }
let server: Server
let url = ''
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

describe('the CLI platform client (node:http)', () => {
  it('addresses each route by the contract: path params, the key header of its auth, a body only on POST', async () => {
    const both = createCliPlatform({ url, userKey: 'parx-u-user', agentKey: 'parx-a-agent' })
    answer = { status: 200, body: '{"ok":1}' }
    expect(
      await both.send({
        params: { id: AGENT_ID },
        body: { to: '0x4444444444444444444444444444444444444444', amount: '1' },
      }),
    ).toEqual({ ok: 1 })
    expect(seen.at(-1)).toMatchObject({
      method: 'POST',
      url: `/api/agents/${AGENT_ID}/send`,
      headers: { 'x-agent-key': 'parx-a-agent' },
    })
    expect(seen.at(-1)!.headers['x-user-key']).toBeUndefined()
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ to: '0x4444444444444444444444444444444444444444', amount: '1' })
    await both.revokeAgentKey({ params: { id: AGENT_ID, keyId: KEY_ID } })
    expect(seen.at(-1)).toMatchObject({
      method: 'DELETE',
      url: `/api/agents/${AGENT_ID}/keys/${KEY_ID}`,
      body: '',
      headers: { 'x-user-key': 'parx-u-user' },
    })
    await createCliPlatform({ url }).manifest({})
    expect(seen.at(-1)!.headers['x-agent-key']).toBeUndefined()
    await createCliPlatform({ url, userKey: 'parx-u-user' }).balance({ params: { id: AGENT_ID } })
    expect(seen.at(-1)!.headers['x-user-key']).toBe('parx-u-user')
  })

  it('a missing key is NO_CREDENTIALS before any request', async () => {
    const before = seen.length
    await expect(createCliPlatform({ url, agentKey: 'a' }).listAgents({})).rejects.toBeInstanceOf(CliError)
    await expect(createCliPlatform({ url, userKey: 'u' }).whoamiAgent({})).rejects.toMatchObject({
      code: 'NO_CREDENTIALS',
    })
    await expect(createCliPlatform({ url }).createUser({ body: {} })).rejects.toMatchObject({ code: 'NO_CREDENTIALS' })
    expect(seen.length).toBe(before)
  })

  it("the platform's error is an ApiError with its code; a server that is not parx is NOT_PARX", async () => {
    answer = { status: 403, body: '{"error":"over the limit","code":"LIMIT_EXCEEDED"}' }
    const e = await createCliPlatform({ url, agentKey: 'a' })
      .pay({ params: { id: AGENT_ID }, body: { url: 'http://x' } })
      .catch((x) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 403, code: 'LIMIT_EXCEEDED' })
    answer = { status: 404, body: '<html>nope</html>' }
    await expect(createCliPlatform({ url, agentKey: 'a' }).whoamiAgent({})).rejects.toMatchObject({ code: 'NOT_PARX' })
  })
})
