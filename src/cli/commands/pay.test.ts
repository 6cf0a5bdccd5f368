import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../sdk/http-errors.js'
import { emit } from '../context.js'
import { describeError } from '../describe-error.js'
import { callTool } from '../mcp/tools.js'
import { AGENT_KEY, fakeDeps, SELLER_URL } from './fake-platform.js'
import type { PayOptions } from './pay.js'
import * as pay from './pay.js'

const agent = { agentKey: AGENT_KEY }
const dir = mkdtempSync(join(tmpdir(), 'parx-pay-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs pay as the CLI does (run, then print) and returns what it printed, sent and its exit code. */
async function cli(opts: PayOptions, deps = fakeDeps(agent)) {
  try {
    const r = await pay.run(opts, deps)
    emit(deps.ctx, r.data, () => pay.human(r.data, deps.ctx, opts.out))
    return {
      exit: r.exit as number,
      data: r.data,
      out: deps.out,
      err: deps.err,
      sent: deps.state.payBodies,
      calls: deps.state.calls,
    }
  } catch (e) {
    const d = describeError(e)
    return {
      exit: d.exit as number,
      error: { error: d.message, code: d.code, fields: d.fields },
      out: deps.out,
      err: deps.err,
      sent: deps.state.payBodies,
      calls: deps.state.calls,
    }
  }
}

/** A refusal: the usage exit code, the reason, and nothing sent to the platform. */
async function refused(opts: PayOptions, reason: RegExp) {
  const r = await cli(opts)
  expect(r, JSON.stringify(opts)).toMatchObject({
    exit: 2,
    error: { code: 'USAGE', error: expect.stringMatching(reason) },
  })
  expect(r.calls).toEqual([])
}

describe('pay: the HTTP call, as curl takes it', () => {
  it('-X POST --json: method, body, and content-type and accept as curl sets them', async () => {
    const r = await cli({ url: SELLER_URL, method: 'POST', json: '{"q":1}' })
    expect(r.exit).toBe(0)
    expect(r.sent).toEqual([
      {
        url: SELLER_URL,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"q":1}',
        dryRun: false,
      },
    ])
  })

  it('-d and --json imply POST unless -X is given; -d sends the form content type; -X is case-insensitive', async () => {
    expect((await cli({ url: SELLER_URL, json: '[]' })).sent[0]).toMatchObject({ method: 'POST', body: '[]' })
    expect((await cli({ url: SELLER_URL, data: 'a=1&b=2' })).sent[0]).toMatchObject({
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=2',
    })
    expect((await cli({ url: SELLER_URL, method: 'put', data: 'x' })).sent[0]).toMatchObject({
      method: 'PUT',
      body: 'x',
    })
    expect((await cli({ url: SELLER_URL, method: 'delete' })).sent[0]).toMatchObject({ method: 'DELETE' })
    // A plain GET sends only the URL, as before.
    expect((await cli({ url: SELLER_URL })).sent).toEqual([{ url: SELLER_URL, dryRun: false }])
  })

  it("-H is repeatable, takes curl's Name: value, and a later one (or one typed over --json's) wins", async () => {
    const r = await cli({
      url: SELLER_URL,
      json: '{}',
      header: ['X-Trace: a:b:c', 'Content-Type: application/vnd.api+json', 'x-trace: 2', 'X-Empty:'],
    })
    expect(r.sent[0]).toMatchObject({
      headers: {
        accept: 'application/json',
        'Content-Type': 'application/vnd.api+json',
        'x-trace': '2',
        'X-Empty': '',
      },
    })
    expect(Object.keys((r.sent[0] as { headers: object }).headers)).toHaveLength(4)
  })

  it('-d @file, --json @file and -d @- (stdin) send the bytes as they are', async () => {
    const file = join(dir, 'body.json')
    writeFileSync(file, '{\n  "q": 1\n}\n')
    expect((await cli({ url: SELLER_URL, data: `@${file}` })).sent[0]).toMatchObject({ body: '{\n  "q": 1\n}\n' })
    expect((await cli({ url: SELLER_URL, json: `@${file}` })).sent[0]).toMatchObject({
      body: '{\n  "q": 1\n}\n',
      headers: { 'content-type': 'application/json' },
    })
    const d = fakeDeps(agent)
    d.stdin = async () => Buffer.from('from stdin')
    expect((await cli({ url: SELLER_URL, data: '@-' }, d)).sent[0]).toMatchObject({ body: 'from stdin' })
  })

  it('refuses before sending anything: reserved headers, a body on GET, a method not forwarded, malformed flags', async () => {
    for (const h of [
      'Authorization: Bearer x',
      'x-agent-key: parx-a-1',
      'Payment-Signature: abc',
      'Host: evil.example',
      'Content-Length: 3',
      'X-API-Key: k',
    ]) {
      await refused(
        { url: SELLER_URL, header: [h] },
        new RegExp(`-H/--header '${h.split(':')[0]}' is refused: pay may not set .*authorization`),
      )
    }
    await refused(
      { url: SELLER_URL, method: 'GET', data: 'x' },
      /a GET has no body: drop -X GET \(-d\/--data implies POST\) or pass -X POST/,
    )
    await refused(
      { url: SELLER_URL, method: 'GET', json: '{}' },
      /a GET has no body: drop -X GET \(--json implies POST\)/,
    )
    await refused(
      { url: SELLER_URL, method: 'HEAD' },
      /-X\/--method 'HEAD': pay forwards GET, POST, PUT, PATCH, DELETE/,
    )
    await refused({ url: SELLER_URL, header: ['no colon'] }, /-H\/--header 'no colon' is not 'Name: value'/)
    await refused({ url: SELLER_URL, header: ['Bad Name: x'] }, /characters HTTP does not allow/)
    await refused(
      { url: SELLER_URL, header: [`X-Big: ${'a'.repeat(9000)}`] },
      /-H\/--header: header value longer than 8192/,
    )
    await refused({ url: SELLER_URL, data: 'a', json: '{}' }, /give the body once: -d\/--data and --json/)
    await refused(
      { url: SELLER_URL, data: `@${join(dir, 'missing')}` },
      /-d\/--data @.*missing: cannot read the file \(ENOENT\)/,
    )
    const bin = join(dir, 'bin')
    writeFileSync(bin, Buffer.from([0xff, 0xfe, 0x00, 0x81]))
    await refused({ url: SELLER_URL, data: `@${bin}` }, /not UTF-8 text/)
    await refused({ url: '' }, /the URL \(argument or --url\) '' is not a URL/)
    await refused({ url: SELLER_URL, out: dir }, /--out .* is a directory/)
    await refused({ url: SELLER_URL, out: join(dir, 'no', 'such', 'dir', 'f') }, /--out .*cannot write there/)
  })

  it('--out writes the answer body to the file (binary safe), and text mode then prints no body', async () => {
    const file = join(dir, 'answer.json')
    const d = fakeDeps(agent, { output: 'text' })
    const r = await cli({ url: SELLER_URL, out: file }, d)
    expect(r.exit).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('{"forecast":"sun"}')
    expect(d.out).toEqual([])
    expect(d.err.join('\n')).toMatch(/Wrote the answer \(18 bytes\) to .*answer\.json/)

    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff])
    const b = fakeDeps(agent, { output: 'text' })
    const real = b.platform
    b.platform = new Proxy(real, {
      get: (t, name) =>
        name === 'pay'
          ? async () => ({
              dryRun: false,
              status: 200,
              headers: { 'content-type': 'image/png' },
              body: png.toString('base64'),
              bodyEncoding: 'base64',
              receipt: null,
            })
          : t[name as keyof typeof t],
    })
    const img = join(dir, 'answer.png')
    expect((await cli({ url: SELLER_URL, out: img }, b)).exit).toBe(0)
    expect(readFileSync(img).equals(png)).toBe(true)
    // Without --out, binary is not printed as text: the message says how to get it.
    const n = fakeDeps(agent, { output: 'text' })
    n.platform = b.platform
    await cli({ url: SELLER_URL }, n)
    expect(n.out).toEqual([])
    expect(n.err.join('\n')).toMatch(/binary \(10 bytes\): save it with --out FILE/)
  })

  it('--max below the price names the flag the user typed; the MCP tool names its field', async () => {
    const r = await cli({ url: SELLER_URL, max: '0.001' })
    expect(r).toMatchObject({
      exit: 7,
      error: { code: 'PRICE_ABOVE_MAX', error: 'the seller asks 0.25 PUSD, above --max 0.001; nothing was paid' },
    })
    expect(r.error?.fields).toEqual({ maxAmount: '0.001', amount: '0.25', token: 'PUSD' })
    const m = await cli({ url: SELLER_URL, max: '0.001', via: 'mcp' })
    expect(m.error?.error).toMatch(/above maxAmount 0\.001;/)
    // On a terminal the cap is the price accepted at the prompt: a seller asking more by then is refused, and said so.
    const t = fakeDeps(agent, { output: 'text', interactive: true, confirm: async () => true })
    const real = t.platform
    t.platform = new Proxy(real, {
      get: (target, name) =>
        name === 'pay'
          ? async (input: { body: { dryRun: boolean; maxAmount?: string } }) => {
              if (input.body.dryRun) return real.pay(input as never)
              // The sentence is built from the fields, whatever the platform's message says.
              throw new ApiError(409, 'PRICE_ABOVE_MAX', 'price above the cap', {
                maxAmount: input.body.maxAmount,
                amount: '0.3',
                token: 'PUSD',
                error: 'price above the cap',
                code: 'PRICE_ABOVE_MAX',
              })
            }
          : target[name as keyof typeof target],
    })
    const raised = await cli({ url: SELLER_URL, max: '5' }, t)
    expect(raised).toMatchObject({
      exit: 7,
      error: { error: 'the seller asks 0.3 PUSD, above the price you accepted (0.25); nothing was paid' },
    })
  })
})

describe('the MCP pay tool', () => {
  it('takes method, headers and body, and refuses what the CLI refuses, before paying', async () => {
    const d = fakeDeps(agent)
    const ok = await callTool(
      'pay',
      {
        url: SELLER_URL,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"q":1}',
        maxAmount: '1',
      },
      async () => d,
    )
    expect(ok.isError).toBeFalsy()
    expect(d.state.payBodies).toEqual([
      {
        url: SELLER_URL,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"q":1}',
        maxAmount: '1',
        dryRun: false,
      },
    ])
    // A body implies POST; a body that starts with @ is text, never a file.
    const at = fakeDeps(agent)
    await callTool('pay', { url: SELLER_URL, body: '@/etc/passwd', maxAmount: '1' }, async () => at)
    expect(at.state.payBodies[0]).toMatchObject({ method: 'POST', body: '@/etc/passwd' })
    for (const [args, reason] of [
      [{ headers: { authorization: 'Bearer x' } }, /headers 'authorization' is refused/],
      [{ method: 'GET', body: 'x' }, /a GET has no body: pass method POST/],
      [{ headers: ['x'] }, /headers must be an object/],
      [{ method: 'TRACE' }, /method 'TRACE': pay forwards/],
    ] as const) {
      const e = fakeDeps(agent)
      const r = await callTool('pay', { url: SELLER_URL, maxAmount: '1', ...args }, async () => e)
      expect(r.isError).toBe(true)
      expect(JSON.parse(r.content[0]!.text)).toMatchObject({ code: 'USAGE', error: expect.stringMatching(reason) })
      expect(e.state.calls).toEqual([])
    }
  })
})
