import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import type { Browser, Page } from 'playwright-core'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { openDashboardBrowser } from './helpers/dashboard-browser.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * Issue 41 item 7, the dashboard's part, in Debian's Chromium (playwright-core, headless) against a
 * real daemon on 127.0.0.1 (SQLite and PostgreSQL: storeSensitive) and a real x402 seller: the
 * agent's `parx pay --wait-approval` (the compiled bin/parx.js) is approved by a click in the
 * Approvals view and completes (paid once, tokens moved); one denied there is never signed (the
 * seller sees no payment, no token moves, no spend is written); one expired cannot be approved and
 * is never signed. The agent page shows every budget window as GET /api/agents/:id/limits and
 * GET /api/users/me/limits answer them after a payment, and a deny rule added on the page refuses
 * the agent's next pay before anything is signed. The deployment requires the dashboard to
 * unfreeze (platform.unfreezeRequiresDashboard): the user key cannot, the page can.
 */
let d: TestDaemon
let browser: Browser
let page: Page
let seller: { url: string; close(): Promise<void> }
const account = privateKeyToAccount(generatePrivateKey())
const tmp = mkdtempSync(join(tmpdir(), 'parx-dash-approvals-'))
const artifacts = join(process.cwd(), 'test', 'artifacts')
let pageErrors: string[] = []
const payTo = randomAddress()
const PRICE = 10n ** 16n // 0.01 PUSD (18 decimals on the local chain)
const paymentsSeen: string[] = []

// Filled in by the first test, used by the next ones (one signed-in wallet, one agent).
let agentId = ''
let agentKey = ''
let userKey = ''
let wallet: Address

beforeAll(async () => {
  d = await startTestDaemon({ flags: { platform: { unfreezeRequiresDashboard: true } } })
  const app = express()
  app.use((req, _res, next) => {
    if (req.header('payment-signature') || req.header('x-payment')) paymentsSeen.push(req.path)
    next()
  })
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: { 'GET /report': { prices: [{ network: 'local-base', asset: 'PUSD', amount: String(PRICE), payTo }] } },
    }),
  )
  app.get('/report', (_req, res) => void res.json({ data: 'the report' }))
  seller = await listen(app)
  mkdirSync(artifacts, { recursive: true })
  ;({ browser, page, pageErrors } = await openDashboardBrowser(account, d.services.base.chainId))
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await seller?.close()
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** The compiled `parx` binary as the agent runs it (its key and id in the environment). */
function parx(
  args: string[],
  as: 'agent' | 'user' = 'agent',
): Promise<{ code: number | null; json: any; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_API_URL: d.urls.api,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    NO_COLOR: '1',
    PARX_AGENT_KEY: as === 'agent' ? agentKey : '',
    PARX_AGENT_ID: as === 'agent' ? agentId : '',
    PARX_USER_KEY: as === 'user' ? userKey : '',
  }
  const child = spawn(process.execPath, ['bin/parx.js', ...args, '--output', 'json'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (b: Buffer) => (stdout += b))
  child.stderr.on('data', (b: Buffer) => (stderr += b))
  return new Promise((resolve) =>
    child.once('close', (code) => {
      let json: any
      try {
        json = JSON.parse(stdout || stderr.slice(stderr.indexOf('{')))
      } catch {}
      resolve({ code, json, stdout, stderr })
    }),
  )
}

const text = (selector: string) => page.locator(selector).first().innerText()
const bal = (owner: Address) =>
  d.services.base.client.readContract({
    address: d.services.base.tokens.PUSD!.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner],
  })
const spendRows = async () =>
  (await d.services.store.db.selectFrom('platform_spends').select('id').where('agent_id', '=', agentId).execute())
    .length
const payUrl = () => `${seller.url}/report`
const sellerHost = () => new URL(seller.url).host
const pendingRow = () => page.locator('#approvals tbody tr')
/** The Approvals view until a pending row is listed (the agent asked meanwhile): Refresh, as the view's own timer would. */
async function waitForPendingRow(): Promise<string> {
  await expect
    .poll(
      async () => {
        await page.click('#approvals-refresh')
        return pendingRow().count()
      },
      { timeout: 60_000, interval: 250 },
    )
    .toBe(1)
  return (await pendingRow().getAttribute('data-approval-id'))!
}
/** The window's cells as the page shows them, and the same from the API. */
const windowCells = async (scope: 'agent' | 'user', w: string) =>
  (await page.$$eval(`[data-window="${scope}-${w}"] td`, (tds) => tds.map((t) => t.textContent))).slice(2)
const apiCells = (v: { limitUsd: string | null; spentUsd: string; remainingUsd: string | null }) => [
  v.limitUsd ?? 'none',
  v.spentUsd,
  v.remainingUsd ?? '—',
]

describe('dashboard: budgets, rules and approvals in Chromium', () => {
  it('the agent page shows every window as the API counts it after a payment; a deny rule added there refuses the next pay; unfreeze only here', async () => {
    await page.goto(d.urls.dashboard)
    await page.click('#connect')
    await page.locator('#wallet').waitFor()
    // A user key for the API checks (the user's windows), from the page's Command line access.
    await page.click('nav a[href="#/cli"]')
    await page.click('#user-key-create')
    userKey = (await text('[data-secret]')).trim()
    await page.click('nav a[href="#/agents"]')
    await page.fill('#agent-name', 'buyer')
    await page.selectOption('#agent-network', 'local-base')
    await page.click('#agent-create')
    await page.waitForURL(/#\/agents\/[0-9a-f-]{36}$/)
    agentId = page.url().split('/').pop()!
    await page.getByText('No agent keys yet').waitFor()
    wallet = (await text('#agent-wallet')).trim() as Address
    await page.click('#agent-key-create')
    agentKey = (await text('[data-secret]')).trim()
    await d.call('/api/local/faucet', { body: { network: 'local-base', to: wallet, token: 'PUSD', amount: '5' } })

    // Limits on the page; the user's budgets with its key (the page shows them beside the agent's).
    await page.fill('#limit-per-payment', '1')
    await page.fill('#limit-daily', '2')
    await page.fill('#limit-monthly', '4')
    await page.click('#limits-save')
    await expect
      .poll(
        async () =>
          (await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })).windows.month
            .limitUsd,
      )
      .toBe('4')
    const userSet = await d.raw('/api/users/me/limits', {
      method: 'POST',
      headers: { 'x-user-key': userKey, 'content-type': 'application/json' },
      body: JSON.stringify({ perPaymentUsd: '0.5', weeklyUsd: '3' }),
    })
    expect(userSet.status, JSON.stringify(userSet.body)).toBe(200)

    const paid = await parx(['pay', payUrl(), '--yes'])
    expect(paid.code, paid.stderr).toBe(0)
    expect(paymentsSeen).toEqual(['/report'])

    await page.reload()
    await page.locator('#limit-windows').waitFor()
    const agentLimits = await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })
    const userLimits = await d.call('/api/users/me/limits', { headers: { 'x-user-key': userKey } })
    expect(agentLimits.windows.day).toEqual({ limitUsd: '2', spentUsd: '0.01', remainingUsd: '1.99' })
    expect(userLimits.windows.week).toEqual({ limitUsd: '3', spentUsd: '0.01', remainingUsd: '2.99' })
    for (const w of ['hour', 'day', 'week', 'month'] as const) {
      expect(await windowCells('agent', w), `agent ${w}`).toEqual(apiCells(agentLimits.windows[w]))
      expect(await windowCells('user', w), `user ${w}`).toEqual(apiCells(userLimits.windows[w]))
    }
    expect((await windowCells('agent', 'payment'))[0]).toBe(agentLimits.perPaymentUsd)
    expect((await windowCells('user', 'payment'))[0]).toBe(userLimits.perPaymentUsd)
    expect(await text('#limit-windows')).toContain('1.99')

    // A deny rule added on the page: shown, in the platform's policy, and enforced on the next pay before signing.
    await page.fill('#rule-denyHosts', '127.0.0.1')
    await page.click('#rules-save')
    await expect.poll(() => text('#agent-rules [data-rule="denyHosts"]')).toContain('127.0.0.1')
    const policy = await d.call(`/api/agents/${agentId}/policy`, { headers: { 'x-agent-key': agentKey } })
    expect(policy.rules).toMatchObject({ denyHosts: ['127.0.0.1'], allowHosts: null })
    const before = { wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }
    const refused = await parx(['pay', payUrl(), '--yes'])
    expect(refused.code, refused.stderr).toBe(7)
    expect(refused.json).toMatchObject({
      code: 'LIMIT_EXCEEDED',
      limit: 'denyHosts',
      scope: 'agent',
      value: '127.0.0.1',
    })
    expect(paymentsSeen).toEqual(['/report'])
    expect({ wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }).toEqual(before)
    // Cleared on the page: not set, and the pay goes through again (the next test's approvals).
    await page.fill('#rule-denyHosts', '')
    await page.click('#rules-save')
    await expect.poll(() => text('#agent-rules [data-rule="denyHosts"]')).toContain('not set')
    expect(
      (await d.call(`/api/agents/${agentId}/policy`, { headers: { 'x-agent-key': agentKey } })).rules.denyHosts,
    ).toBeNull()

    // Frozen on the page; this deployment refuses the user key's unfreeze, and the page's works.
    await page.click('#agent-freeze')
    await page.locator('#agent-unfreeze').waitFor()
    const byKey = await d.raw(`/api/agents/${agentId}/unfreeze`, { method: 'POST', headers: { 'x-user-key': userKey } })
    expect(byKey.status).toBe(403)
    expect(byKey.body.code).toBe('FORBIDDEN')
    const frozenPay = await parx(['pay', payUrl(), '--yes'])
    expect(frozenPay.code, frozenPay.stderr).toBe(9)
    await page.click('#agent-unfreeze')
    await page.locator('#agent-freeze').waitFor()
    expect((await d.call(`/api/agents/${agentId}`, { headers: { 'x-agent-key': agentKey } })).frozen).toBe(false)
    expect(paymentsSeen).toEqual(['/report'])
    await page.screenshot({ path: join(artifacts, 'dashboard-agent-policy.png'), fullPage: true })
  }, 240_000)

  it("approved in the Approvals view, the agent's waiting pay completes once; denied there, it is never signed", async () => {
    await page.goto(`${d.urls.dashboard}#/agents/${agentId}`)
    await page.fill('#limit-approve-above', '0.005')
    await page.click('#limits-save')
    // The input holds what the test typed at once; the save is done when the platform has it.
    await expect
      .poll(
        async () =>
          (await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })).approveAboveUsd,
      )
      .toBe('0.005')
    const seen = paymentsSeen.length
    const before = { wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }

    // The agent waits; the owner sees it in the view (agent, seller host, amount, expiry) and approves.
    const waiting = parx(['pay', payUrl(), '--yes', '--wait-approval', '120'])
    await page.click('nav a[href="#/approvals"]')
    await page.getByText('Nothing is waiting for your approval.').or(pendingRow()).first().waitFor()
    const approvalId = await waitForPendingRow()
    const row = page.locator(`#approvals tr[data-approval-id="${approvalId}"]`)
    expect(await row.innerText()).toContain('buyer')
    expect(await row.innerText()).toContain(sellerHost())
    expect(await row.innerText()).toContain('0.01 PUSD')
    expect(await row.locator('[data-expires-at]').getAttribute('data-expires-at')).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(paymentsSeen.length).toBe(seen)
    await page.screenshot({ path: join(artifacts, 'dashboard-approvals.png'), fullPage: true })
    await row.getByRole('button', { name: /^Approve / }).click()
    await page.getByText('Nothing is waiting for your approval.').waitFor()

    const done = await waiting
    expect(done.code, done.stderr).toBe(0)
    expect(done.json).toMatchObject({ dryRun: false, status: 200, receipt: { amount: '0.01', token: 'PUSD', payTo } })
    expect(paymentsSeen.length).toBe(seen + 1)
    expect(await bal(payTo)).toBe(before.seller + PRICE)
    expect(await bal(wallet)).toBe(before.wallet - PRICE)
    expect(await spendRows()).toBe(before.rows + 1)
    await page.click('#approvals-refresh')
    await expect
      .poll(() => page.locator(`#approvals-history tr[data-approval-id="${approvalId}"]`).getAttribute('data-state'))
      .toBe('consumed')
    // The agent page counts it in its windows, as the API does.
    const limits = await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })
    expect(limits.windows.day.spentUsd).toBe('0.02')
    await page.goto(`${d.urls.dashboard}#/agents/${agentId}`)
    await page.locator('#limit-windows').waitFor()
    expect(await windowCells('agent', 'day')).toEqual(apiCells(limits.windows.day))

    // Denied in the view: the waiting pay ends refused, and nothing was signed or moved.
    const after = { wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }
    const refused = parx(['pay', payUrl(), '--yes', '--wait-approval', '120'])
    await page.click('nav a[href="#/approvals"]')
    const deniedId = await waitForPendingRow()
    await page
      .locator(`#approvals tr[data-approval-id="${deniedId}"]`)
      .getByRole('button', { name: /^Deny / })
      .click()
    await expect
      .poll(() => page.locator(`#approvals-history tr[data-approval-id="${deniedId}"]`).getAttribute('data-state'))
      .toBe('denied')
    const no = await refused
    expect(no.code, no.stderr).toBe(3)
    expect(no.json).toMatchObject({ code: 'APPROVAL_NOT_USABLE', state: 'denied' })
    expect(paymentsSeen.length).toBe(seen + 1)
    expect({ wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }).toEqual(after)
    // Readable on a narrow window: the view and the agent page (windows, rules) fit 360 px.
    await page.setViewportSize({ width: 360, height: 800 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.screenshot({ path: join(artifacts, 'dashboard-approvals-narrow.png'), fullPage: true })
    await page.goto(`${d.urls.dashboard}#/agents/${agentId}`)
    await page.locator('#rules-form').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.setViewportSize({ width: 1100, height: 900 })
    await page.click('nav a[href="#/approvals"]')
    await page.locator('#approvals-history').waitFor()
    expect(pageErrors).toEqual([])
  }, 240_000)

  it('an expired approval leaves the pending list, cannot be approved from the page session, and is never signed', async () => {
    const seen = paymentsSeen.length
    const before = { wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }
    const held = await parx(['pay', payUrl(), '--yes'])
    expect(held.code, held.stderr).toBe(11)
    const id = held.json.approvalId as string
    await page.click('#approvals-refresh')
    await page.locator(`#approvals tr[data-approval-id="${id}"]`).waitFor()
    // Aged past its expiry in the store, as the clock would (no test waits on time).
    await d.services.store.db
      .updateTable('platform_approvals')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', id)
      .execute()
    await page.click('#approvals-refresh')
    await expect
      .poll(() => page.locator(`#approvals-history tr[data-approval-id="${id}"]`).getAttribute('data-state'))
      .toBe('expired')
    expect(await page.locator(`#approvals tr[data-approval-id="${id}"]`).count()).toBe(0)
    // The page's own route, with its session and CSRF token: refused, 409.
    const late = await page.evaluate(async (approvalId) => {
      const s = await (await fetch('/dashboard/api/session')).json()
      const r = await fetch(`/dashboard/api/approvals/${approvalId}/approve`, {
        method: 'POST',
        headers: { 'x-csrf-token': s.csrfToken },
      })
      return { status: r.status, body: await r.json() }
    }, id)
    expect(late).toMatchObject({ status: 409, body: { code: 'APPROVAL_NOT_PENDING', state: 'expired' } })
    const used = await parx(['pay', payUrl(), '--yes', '--approval-id', id])
    expect(used.code).toBe(3)
    expect(used.json).toMatchObject({ code: 'APPROVAL_NOT_USABLE', state: 'expired' })
    expect(paymentsSeen.length).toBe(seen)
    expect({ wallet: await bal(wallet), seller: await bal(payTo), rows: await spendRows() }).toEqual(before)
    expect(pageErrors).toEqual([])
  }, 120_000)
})
