import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const bin = fileURLToPath(new URL('../bin/parx.js', import.meta.url))
const AGENT_KEY = `parx-a-${'2'.repeat(64)}`
const AGENT_ID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'
const NOW = '2026-11-23T20:00:00.000Z'
const agent = {
  id: AGENT_ID,
  name: 'buyer',
  network: 'local-base',
  chainId: 31337,
  wallet: '0x1111111111111111111111111111111111111111',
  sendMethod: 'userOperation',
  tokens: [{ symbol: 'PUSD', decimals: 6, address: null }],
  createdAt: NOW,
  limits: {
    perPaymentUsd: null,
    hourlyUsd: null,
    dailyUsd: null,
    weeklyUsd: null,
    monthlyUsd: null,
    allowedHosts: null,
    spentTodayUsd: '0',
    remainingTodayUsd: null,
    windows: windows(),
    user: { perPaymentUsd: null, windows: windows() },
    mayStillSpendUsd: null,
  },
}
function windows() {
  const open = () => ({ limitUsd: null, spentUsd: '0', remainingUsd: null })
  return { hour: open(), day: open(), week: open(), month: open() }
}

/**
 * The platform's side of the contract for three routes (docs/platform-api.md), on 127.0.0.1: the
 * daemon's routes are built elsewhere; this checks that `parx mcp` speaks MCP and the contract.
 */
const seen: { method: string; url: string; agentKey?: string }[] = []
let platform: Server
let platformUrl = ''
beforeAll(async () => {
  platform = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method!, url: req.url!, agentKey: req.headers['x-agent-key'] as string | undefined })
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    if (req.headers['x-agent-key'] !== AGENT_KEY)
      return send(401, { error: 'unknown or revoked key', code: 'UNAUTHORIZED' })
    if (req.url === '/api/agents/me') return send(200, agent)
    if (req.url === `/api/agents/${AGENT_ID}/limits`) return send(200, agent.limits)
    send(404, { error: 'no route', code: 'NOT_FOUND' })
  })
  await new Promise<void>((r) => platform.listen(0, '127.0.0.1', r))
  platformUrl = `http://127.0.0.1:${(platform.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((r) => platform.close(() => r())))

const dir = mkdtempSync(join(tmpdir(), 'parx-mcp-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** An MCP client of the compiled `parx mcp`, spawned over stdio as an agent framework would. */
async function connect(env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PARX_CONFIG_DIR: join(dir, 'conf'),
      PARX_RUNTIME_DIR: join(dir, 'run'),
      PARX_AGENTS_URL: platformUrl,
      ...env,
    },
    stderr: 'pipe',
  })
  const client = new Client({ name: 'parx-test', version: '0.0.0' })
  await client.connect(transport)
  return client
}

const json = (r: Awaited<ReturnType<Client['callTool']>>) =>
  JSON.parse((r.content as { type: string; text: string }[])[0]!.text)

describe('parx mcp', () => {
  it('lists the agent tools with their input schemas', async () => {
    const client = await connect({})
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name).sort()).toEqual([
        'approvals',
        'balance',
        'channels',
        'discover',
        'history',
        'limits',
        'manifest',
        'pay',
        'refund_channel',
        'send',
        'swap',
        'whoami',
        'withdraw_channel',
      ])
      expect(tools.find((t) => t.name === 'withdraw_channel')!.inputSchema).toMatchObject({ required: ['channel'] })
      expect(tools.find((t) => t.name === 'refund_channel')!.inputSchema).toMatchObject({ required: ['channel'] })
      const pay = tools.find((t) => t.name === 'pay')!
      expect(pay.inputSchema).toMatchObject({
        type: 'object',
        properties: { url: { type: 'string' }, maxAmount: { type: 'string' }, dryRun: { type: 'boolean' } },
        required: ['url'],
      })
      expect(tools.find((t) => t.name === 'send')!.inputSchema).toMatchObject({
        required: expect.arrayContaining(['to', 'amount']),
      })
      expect(tools.find((t) => t.name === 'swap')!.inputSchema).toMatchObject({ required: ['from', 'to', 'amount'] })
    } finally {
      await client.close()
    }
  })

  it('without credentials a tool call is an MCP tool error with the code', async () => {
    const client = await connect({})
    try {
      const r = await client.callTool({ name: 'whoami', arguments: {} })
      expect(r.isError).toBe(true)
      expect(json(r)).toEqual({ error: expect.stringMatching(/needs an agent key/), code: 'NO_CREDENTIALS' })
      expect(seen).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('answers with the same JSON as `parx whoami --output json`, and a wrong key is UNAUTHORIZED', async () => {
    const good = await connect({ PARX_AGENT_KEY: AGENT_KEY })
    try {
      const r = await good.callTool({ name: 'whoami', arguments: {} })
      expect(r.isError).toBeFalsy()
      expect(json(r)).toEqual(agent)
      expect(seen.at(-1)).toEqual({ method: 'GET', url: '/api/agents/me', agentKey: AGENT_KEY })
      // pay keeps its guard rails: no maxAmount and no limits on the agent is refused before paying.
      const p = await good.callTool({ name: 'pay', arguments: { url: 'http://127.0.0.1:9/paid' } })
      expect(p.isError).toBe(true)
      expect(json(p)).toMatchObject({ code: 'USAGE', error: expect.stringMatching(/needs maxAmount/) })
      expect(seen.some((s) => s.url.endsWith('/pay'))).toBe(false)
      // What may I spend: the agent's own limits route, with its key.
      const l = await good.callTool({ name: 'limits', arguments: {} })
      expect(json(l)).toEqual(agent.limits)
      expect(seen.at(-1)).toEqual({ method: 'GET', url: `/api/agents/${AGENT_ID}/limits`, agentKey: AGENT_KEY })
      const bad = await good.callTool({ name: 'send', arguments: { to: '0x12', amount: '1' } })
      expect(json(bad)).toMatchObject({ code: 'USAGE', error: expect.stringContaining('--to') })
    } finally {
      await good.close()
    }
    const wrong = await connect({ PARX_AGENT_KEY: `parx-a-${'9'.repeat(64)}` })
    try {
      const r = await wrong.callTool({ name: 'balance', arguments: {} })
      expect(r.isError).toBe(true)
      expect(json(r)).toMatchObject({ code: 'UNAUTHORIZED' })
    } finally {
      await wrong.close()
    }
  })
})
