import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import express from 'express'
import type { Browser, Page } from 'playwright-core'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlatformClient } from '../src/sdk/platform/client.js'
import { paymentGate } from '../src/sdk/x402/seller/middleware.js'
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js'
import { openDashboardBrowser } from './helpers/dashboard-browser.js'
import { randomAddress } from './helpers/x402.js'
import { listen } from './helpers/x402-buyers.js'

/**
 * The dashboard's Alerts view in Chromium (Debian's, headless, playwright-core) against a real
 * daemon on 127.0.0.1, signed in with a test wallet injected as window.ethereum: a rule added
 * with the form is listed, a real pay of the wallet's agent to a real x402 seller fires it, the
 * fired alert is listed with its message, and removing the rule keeps the history.
 */
let d: TestDaemon
let browser: Browser
let page: Page
let seller: { url: string; close(): Promise<void> }
const account = privateKeyToAccount(generatePrivateKey())
const artifacts = join(process.cwd(), 'test', 'artifacts')
let pageErrors: string[] = []

beforeAll(async () => {
  d = await startTestDaemon()
  const app = express()
  app.use(
    paymentGate({
      facilitator: { url: d.urls.facilitator },
      routes: {
        'GET /report': {
          prices: [{ network: 'local-base', asset: 'PUSD', amount: String(10n ** 16n), payTo: randomAddress() }],
        },
      },
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
})

describe('dashboard Alerts view in Chromium', () => {
  it('adds a rule with the form, shows the alert a real pay fired, removes the rule and keeps the history', async () => {
    await page.goto(d.urls.dashboard)
    await page.click('#connect')
    await page.locator('#wallet').waitFor()

    // A user key for the same user, as the CLI page gives one: the agent below is this wallet's.
    await page.click('nav a[href="#/cli"]')
    await page.click('#user-key-create')
    const userKey = (await page.locator('[data-secret]').first().innerText()).trim()

    await page.click('nav a[href="#/alerts"]')
    await page.getByText('No alert rules yet').waitFor()
    await page.getByText('No alerts fired yet').waitFor()
    await page.selectOption('#alert-kind', 'payment_above')
    expect(await page.locator('#alert-percent').count()).toBe(0)
    await page.fill('#alert-usd', '0.005')
    await page.click('#alert-add')
    const rule = page.locator('#alert-rules tr', { hasText: 'A payment above 0.005 USD' })
    await rule.waitFor()
    expect(await rule.innerText()).toContain('all agents')

    const user = createPlatformClient({ url: d.urls.platform, userKey })
    const a = await user.createAgent({ body: { name: 'buyer', network: 'local-base' } })
    const agentKey = (await user.createAgentKey({ params: { id: a.id }, body: {} })).agentKey
    await d.call('/api/local/faucet', {
      body: { network: 'local-base', to: a.wallet as Address, token: 'PUSD', amount: '1' },
    })
    const paid = await createPlatformClient({ url: d.urls.platform, agentKey }).pay({
      params: { id: a.id },
      body: { url: `${seller.url}/report` },
    })
    expect('status' in paid && paid.status).toBe(200)

    await page.reload()
    const alert = page.locator('#alert-history tr', { hasText: 'above 0.005 USD' })
    await alert.waitFor()
    expect(await alert.innerText()).toContain('payment_above')
    expect(await alert.innerText()).toContain('0.01 USD')
    await page.screenshot({ path: join(artifacts, 'dashboard-alerts.png'), fullPage: true })

    await rule.getByRole('button', { name: /^Remove rule/ }).click()
    await page.getByText('No alert rules yet').waitFor()
    expect(await page.locator('#alert-history tr', { hasText: 'above 0.005 USD' }).count()).toBe(1)
    expect((await user.listAlertRules({})).rules).toHaveLength(0)
    expect(pageErrors).toEqual([])
  }, 180_000)
})
