import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { openDashboardBrowser } from './helpers/dashboard-browser.js'

/**
 * The dashboard in a real browser: Debian's Chromium driven headless by playwright-core against a
 * real daemon on 127.0.0.1, with a test wallet injected as window.ethereum (EIP-1193) that signs
 * with a viem account in this process. Screenshots go to test/artifacts/ (git-ignored).
 */
let d: TestDaemon
let browser: Browser
let page: Page
const account = privateKeyToAccount(generatePrivateKey())
const tmp = mkdtempSync(join(tmpdir(), 'parx-dash-'))
const artifacts = join(process.cwd(), 'test', 'artifacts')
let pageErrors: string[] = []
const kRoute = `/api/base/confirm?hash=0x${'ab'.repeat(32)}`

beforeAll(async () => {
  d = await startTestDaemon()
  mkdirSync(artifacts, { recursive: true })
  ;({ browser, page, pageErrors } = await openDashboardBrowser(account, d.services.base.chainId))
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await d?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** The compiled `parx` binary (built by vitest's globalSetup), as test/cli-tour.test.ts runs it. */
function parx(args: string[]): Promise<{ code: number | null; json: any; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PARX_API_URL: d.urls.api,
    PARX_AGENTS_URL: d.urls.platform,
    PARX_CONFIG_DIR: join(tmp, 'config'),
    PARX_RUNTIME_DIR: join(tmp, 'run'),
    NO_COLOR: '1',
    PARX_AGENT_KEY: '',
    PARX_AGENT_ID: '',
    PARX_USER_KEY: '',
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
        json = JSON.parse(stdout)
      } catch {}
      resolve({ code, json, stdout, stderr })
    }),
  )
}

const text = (selector: string) => page.locator(selector).first().innerText()
const keyRow = (name: string) => page.locator('tr', { hasText: name })

describe('dashboard in Chromium', () => {
  it('signs in with the keyboard, manages partner keys, CLI keys, an agent and its payments, and signs out', async () => {
    await page.goto(d.urls.dashboard)
    // Keyboard only: Tab reaches the sign-in button, Enter presses it.
    await page.locator('#connect').waitFor()
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== 'connect'; i++)
      await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('connect')
    await page.keyboard.press('Enter')
    await page.locator('#wallet').waitFor()
    expect(await page.locator('#wallet').getAttribute('title')).toBe(account.address)

    // Partner keys: empty state, create, the secret once.
    await page.getByText('No keys yet').waitFor()
    await page.fill('#key-name', 'backend')
    await page.fill('#key-description', 'production swaps')
    await page.click('#key-create')
    const secret = (await text('[data-secret]')).trim()
    expect(secret).toMatch(/^parx-[0-9a-f]{32}$/)
    await keyRow('backend').waitFor()
    expect(await keyRow('backend').innerText()).toContain(`parx-…${secret.slice(-4)}`)
    await page.screenshot({ path: join(artifacts, 'dashboard-keys.png'), fullPage: true })

    // The key on a K route of the swap API, then its last use shown.
    expect((await d.raw(kRoute, { headers: { 'x-api-key': secret } })).status).toBe(200)
    await expect
      .poll(
        async () => {
          await page.reload()
          await keyRow('backend').waitFor()
          return keyRow('backend').locator('td[data-label="Last used"]').innerText()
        },
        { timeout: 10_000 },
      )
      .not.toBe('never')
    // After a reload the secret is gone: only prefix and last four.
    expect(await page.locator('[data-secret]').count()).toBe(0)
    expect(await page.content()).not.toContain(secret)

    // Deactivate: listed as deactivated, refused by the K route.
    await keyRow('backend').getByRole('button', { name: 'Deactivate backend' }).click()
    await keyRow('backend').locator('td.state-deactivated').waitFor()
    const refused = await d.raw(kRoute, { headers: { 'x-api-key': secret } })
    expect(refused.status).toBe(401)
    expect(refused.body.code).toBe('UNAUTHORIZED')
    // Delete asks once more, then the list is empty again.
    await keyRow('backend').getByRole('button', { name: 'Delete backend' }).click()
    await keyRow('backend')
      .getByRole('button', { name: /^Confirm delete backend/ })
      .click()
    await page.getByText('No keys yet').waitFor()
    expect((await d.raw(kRoute, { headers: { 'x-api-key': secret } })).status).toBe(401)

    // Command line access: a user key, used by the compiled CLI.
    await page.click('nav a[href="#/cli"]')
    await page.getByText('No command line keys yet').waitFor()
    await page.click('#user-key-create')
    const userKey = (await text('[data-secret]')).trim()
    expect(userKey).toMatch(/^parx-u-[0-9a-f]{64}$/)
    const login = await parx(['auth', 'user', 'login', '--user-key', userKey])
    expect(login.code, login.stderr).toBe(0)
    const me = await parx(['user', 'whoami'])
    expect(me.code, me.stderr).toBe(0)
    expect(me.json.wallet).toBe(account.address)

    // Agents: empty state, create one on local-radius, its page.
    await page.click('nav a[href="#/agents"]')
    await page.getByText('No agents yet').waitFor()
    await page.fill('#agent-name', 'runner')
    await page.selectOption('#agent-network', 'local-radius')
    await page.click('#agent-create')
    await page.waitForURL(/#\/agents\/[0-9a-f-]{36}$/)
    const agentId = page.url().split('/').pop()!
    await page
      .getByText('No agent keys yet')
      .waitFor()
      .catch(async (e) => {
        throw new Error(
          `${e.message}\npage errors: ${pageErrors.join('; ')}\npage: ${page.url()}\n${await page.locator('#app').innerText()}`,
        )
      })
    await page.getByText('No payments yet.').waitFor()
    const wallet = (await text('#agent-wallet')).trim()
    await page.fill('#agent-key-label', 'ci')
    await page.click('#agent-key-create')
    const agentKey = (await text('[data-secret]')).trim()
    expect(agentKey).toMatch(/^parx-a-[0-9a-f]{64}$/)

    // Limits edited on the page hold on the platform.
    await page.fill('#limit-daily', '50')
    await page.fill('#limit-weekly', '70')
    await page.click('#limits-save')
    // The input holds what the test typed at once; the save is done when the platform has it.
    await expect
      .poll(
        async () => (await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })).dailyUsd,
      )
      .toBe('50')
    // The hosts pay may pay are the rules' allow-list (one list with the limits' allowedHosts).
    await page.fill('#rule-allowHosts', 'api.example.com, *.shop.example')
    await page.click('#rules-save')
    await expect
      .poll(() => page.locator('#agent-rules [data-rule="allowHosts"]').innerText())
      .toBe('api.example.com, *.shop.example')
    const limits = await d.call(`/api/agents/${agentId}/limits`, { headers: { 'x-agent-key': agentKey } })
    expect(limits).toMatchObject({
      dailyUsd: '50',
      weeklyUsd: '70',
      hourlyUsd: null,
      perPaymentUsd: null,
      allowedHosts: ['api.example.com', '*.shop.example'],
    })
    // The page shows every window, the agent's and the user's (issue 41 item 1).
    expect(await text('[data-window="agent-week"]')).toMatch(/70\s*0\s*70/)
    expect(await text('[data-window="user-month"]')).toMatch(/none/)

    // Freeze from the page: the agent's send is refused at once; Unfreeze lets it spend again (issue 41 item 4).
    await page.click('#agent-freeze')
    await page.locator('#agent-unfreeze').waitFor()
    expect(await text('#freeze-state')).toMatch(/Frozen since/)
    const frozenSend = await d.raw(`/api/agents/${agentId}/send`, {
      method: 'POST',
      headers: { 'x-agent-key': agentKey, 'content-type': 'application/json' },
      body: JSON.stringify({ to: wallet, amount: '1' }),
    })
    expect(frozenSend.status).toBe(423)
    expect(frozenSend.body.code).toBe('AGENT_FROZEN')
    await page.click('#agent-unfreeze')
    await page.locator('#agent-freeze').waitFor()
    expect((await d.call(`/api/agents/${agentId}`, { headers: { 'x-agent-key': agentKey } })).frozen).toBe(false)

    // A payment made by the agent with its key shows on its page.
    await d.call('/api/local/faucet', { body: { network: 'local-radius', to: wallet, token: 'PUSD', amount: '5' } })
    const to = privateKeyToAccount(generatePrivateKey()).address
    const sent = await d.call(`/api/agents/${agentId}/send`, {
      body: { to, amount: '1.25' },
      headers: { 'x-agent-key': agentKey },
    })
    expect(sent.status).toBe('confirmed')
    const chain = d.services.evm['local-radius']!
    expect(
      await chain.client.readContract({
        address: chain.tokens.PUSD!.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [to],
      }),
    ).toBe(1_250_000n)
    await page.reload()
    const payments = page.locator('#payments')
    await payments.waitFor()
    expect(await payments.innerText()).toContain('1.25 PUSD')
    expect(await payments.innerText()).toContain(to)
    expect(await payments.innerText()).toContain(sent.transaction)
    expect(await text('#balances')).toContain('3.75')
    await page.screenshot({ path: join(artifacts, 'dashboard-agent.png'), fullPage: true })

    // Spending per day and the payments list (issue 29 item 4). A second send today, and history on
    // the days before: the chain cannot go back in time, so those spends are written to the ledger
    // as the spends ledger writes them (one released: it moved nothing and is not charted).
    const sent2 = await d.call(`/api/agents/${agentId}/send`, {
      body: { to, amount: '0.5' },
      headers: { 'x-agent-key': agentKey },
    })
    expect(sent2.status).toBe('confirmed')
    const DAY = 86_400_000
    const today = Math.floor(Date.now() / DAY) * DAY
    const past: [
      daysAgo: number,
      kind: 'pay' | 'send' | 'swap',
      usd: string,
      host: string | null,
      state: 'confirmed' | 'reserved' | 'released',
    ][] = [
      [1, 'pay', '2', 'api.example.com', 'confirmed'],
      [1, 'pay', '0.75', 'data.shop.example', 'reserved'],
      [2, 'swap', '3', null, 'confirmed'],
      [3, 'pay', '40', 'api.example.com', 'released'],
      [5, 'pay', '1.1', 'api.example.com', 'confirmed'],
      [8, 'send', '4.2', null, 'confirmed'],
      [13, 'pay', '0.01', 'data.shop.example', 'confirmed'],
      [21, 'swap', '12', null, 'confirmed'],
      [29, 'pay', '0.3', 'api.example.com', 'confirmed'],
      [29, 'send', '7', null, 'confirmed'],
      [35, 'pay', '9', 'api.example.com', 'confirmed'],
    ]
    for (const [i, [ago, kind, usd, host, state]] of past.entries()) {
      const at = today - ago * DAY + (i + 1) * 3_600_000
      await d.services.store.db
        .insertInto('platform_spends')
        .values({
          id: randomUUID(),
          agent_id: agentId,
          kind,
          amount_micros: String(Math.round(Number(usd) * 1e6)),
          token: 'PUSD',
          amount: usd,
          recipient: kind === 'swap' ? null : to,
          host,
          state,
          tx: state === 'confirmed' ? `0x${String(i).padStart(64, '0')}` : null,
          user_op: null,
          reason: state === 'released' ? 'test: moved nothing' : null,
          created_at: at,
          updated_at: at,
          valid_before: null,
          proof: null,
        })
        .execute()
    }
    await page.reload()
    const chart = page.locator('#spend-chart')
    await chart.waitFor()
    const bars = await page.$$eval('#spend-chart rect.bar', (els) =>
      els.map((e) => ({
        day: e.getAttribute('data-day'),
        usd: e.getAttribute('data-usd'),
        count: Number(e.getAttribute('data-count')),
      })),
    )
    const titles = await page.$$eval('#spend-chart g.day > title', (els) => els.map((e) => e.textContent))
    const fromApi = await page.evaluate(
      (id) => fetch(`/dashboard/api/agents/${id}/spending`).then((r) => r.json()),
      agentId,
    )
    // Bar for bar, what is drawn is what the API answers: 30 UTC days, today last.
    expect(bars).toEqual(fromApi.days)
    expect(bars).toHaveLength(30)
    const day = (ago: number) => new Date(today - ago * DAY).toISOString().slice(0, 10)
    expect(bars.at(-1)).toEqual({ day: day(0), usd: '1.75', count: 2 })
    const byDay = Object.fromEntries(bars.map((b) => [b.day, b.usd]))
    expect([byDay[day(1)], byDay[day(2)], byDay[day(3)], byDay[day(29)], byDay[day(4)]]).toEqual([
      '2.75',
      '3',
      '0',
      '7.3',
      '0',
    ])
    expect(titles.at(-1)).toBe(`${day(0)}: 1.75 USD, 2 payments`)
    // The same totals as the platform's report (what `parx report` prints) over the same UTC days.
    const report = await d.call(`/api/agents/${agentId}/report`, {
      query: { since: day(29) },
      headers: { 'x-agent-key': agentKey },
    })
    expect(Object.fromEntries(report.byDay.map((r: any) => [r.day, r.usd]))).toEqual(
      Object.fromEntries(bars.filter((b) => b.usd !== '0').map((b) => [b.day, b.usd])),
    )
    // And the same as `parx report` prints, run as the user (the compiled binary, logged in above).
    const cli = await parx(['report', '--agent', agentId, '--since', day(29)])
    expect(cli.code, cli.stderr).toBe(0)
    expect(Object.fromEntries(cli.json.byDay.map((r: any) => [r.day, r.usd]))).toEqual(
      Object.fromEntries(bars.filter((b) => b.usd !== '0').map((b) => [b.day, b.usd])),
    )
    expect(cli.json.total.usd).toBe('32.11')
    // The limit line is the daily limit set above.
    expect(await chart.locator('line.limit').getAttribute('data-limit-usd')).toBe('50')
    expect(fromApi.dailyLimitUsd).toBe(limits.dailyUsd)
    expect(await chart.getAttribute('data-total-usd')).toBe('32.11')
    await page.screenshot({ path: join(artifacts, 'dashboard-agent-chart.png'), fullPage: true })

    // Payments: 13 in all, newest first, 10 a page.
    const all = await page.evaluate(
      (id) => fetch(`/dashboard/api/agents/${id}/payments?limit=200`).then((r) => r.json()),
      agentId,
    )
    expect(all.payments).toHaveLength(13)
    const rowIds = () => page.$$eval('#payments tbody tr', (els) => els.map((e) => e.getAttribute('data-payment-id')))
    await expect.poll(rowIds).toHaveLength(10)
    const first = await rowIds()
    expect(first).toEqual(all.payments.slice(0, 10).map((p: any) => p.id))
    expect(await page.locator('#payments-newer').isDisabled()).toBe(true)
    await page.click('#payments-older')
    await expect.poll(rowIds).toEqual(all.payments.slice(10).map((p: any) => p.id))
    expect(await page.locator('#payments-older').isDisabled()).toBe(true)
    expect(await text('#payments-page')).toBe('Page 2')
    await page.click('#payments-newer')
    await expect.poll(rowIds).toEqual(first)
    // Filters: kind, seller host, since a UTC day; each against the API's own answer.
    const kinds = () => page.$$eval('#payments tbody tr', (els) => els.map((e) => e.getAttribute('data-kind')))
    await page.selectOption('#payments-kind', 'pay')
    await page.click('#payments-apply')
    await expect.poll(kinds).toEqual(Array(7).fill('pay'))
    expect(await page.locator('.pager').isHidden()).toBe(true)
    await page.fill('#payments-host', 'api.example.com')
    await page.click('#payments-apply')
    await expect
      .poll(rowIds)
      .toEqual(all.payments.filter((p: any) => p.host === 'api.example.com').map((p: any) => p.id))
    expect(await rowIds()).toHaveLength(5)
    await page.fill('#payments-since', day(5))
    await page.click('#payments-apply')
    await expect.poll(rowIds).toHaveLength(3)
    await page.fill('#payments-host', 'nobody.example')
    await page.click('#payments-apply')
    await page.getByText('No payments match these filters.').waitFor()
    await page.click('#payments-clear')
    await expect.poll(rowIds).toEqual(first)
    // A host the API refuses is said in the section, not thrown.
    await page.fill('#payments-host', 'not a host!')
    await page.click('#payments-apply')
    await expect.poll(() => page.locator('#payments-filter + .error').innerText()).toMatch(/host/)
    await page.click('#payments-clear')

    // Readable on a narrow window: nothing wider than the viewport.
    await page.setViewportSize({ width: 360, height: 800 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.screenshot({ path: join(artifacts, 'dashboard-agent-narrow.png'), fullPage: true })
    await page.click('nav a[href="#/keys"]')
    await page.getByText('No keys yet').waitFor()
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360)
    await page.setViewportSize({ width: 1100, height: 900 })

    // Sign out: back to the sign-in page, and the session is over on the server.
    await page.click('#logout')
    await page.locator('#connect').waitFor()
    const after = await page.evaluate(() => fetch('/dashboard/api/session').then((r) => r.status))
    expect(after).toBe(401)
    expect(pageErrors).toEqual([])
  }, 180_000)
})
