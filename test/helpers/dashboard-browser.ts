import { type Browser, chromium, type Page } from 'playwright-core'
import { type Hex, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

/** Debian's Chromium, headless, with nothing of its own reaching for the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    // notes/hosted-and-mpp.md: without the background-networking flags Chromium floods the closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * Debian's Chromium with one page whose `window.ethereum` is the test's wallet (accounts, chain id
 * and personal_sign by `account`), as the dashboard's Chromium tests sign in with SIWE. Page errors
 * are collected in `pageErrors` for the tests to assert none.
 */
export async function openDashboardBrowser(
  account: PrivateKeyAccount,
  chainId: number,
): Promise<{ browser: Browser; page: Page; pageErrors: string[] }> {
  const browser = await launchChromium()
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
  page.setDefaultTimeout(20_000)
  const pageErrors: string[] = []
  page.on('pageerror', (e) => pageErrors.push(e.message))
  await page.exposeFunction('__parxTestWallet', async (method: string, params: unknown[]) => {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account.address]
    if (method === 'eth_chainId') return toHex(chainId)
    if (method === 'personal_sign') return account.signMessage({ message: { raw: params[0] as Hex } })
    throw new Error(`the test wallet does not do ${method}`)
  })
  await page.addInitScript(
    'window.ethereum = { request: function (a) { return window.__parxTestWallet(a.method, a.params || []) } }',
  )
  return { browser, page, pageErrors }
}
