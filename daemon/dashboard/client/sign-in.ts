import { BaseError } from '../../../src/errors/base.js'
import type { DashboardSession, SiweMessage } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { api } from './api.js'
import { act, errorBox, h } from './dom.js'
import { app, nav, page, render, state, who } from './state.js'

/** The injected EIP-1193 wallet (a browser extension). */
type Eip1193 = { request(a: { method: string; params?: unknown[] }): Promise<unknown> }
declare global {
  interface Window {
    ethereum?: Eip1193
  }
}

/** personal_sign takes the message as 0x hex of its UTF-8 bytes. */
function utf8Hex(text: string): string {
  let out = '0x'
  for (const b of new TextEncoder().encode(text)) out += b.toString(16).padStart(2, '0')
  return out
}

/** Sign-In with Ethereum: the server's message, signed by the wallet, for a session cookie. */
async function signIn(box: HTMLElement): Promise<void> {
  const eth = window.ethereum
  if (!eth)
    throw new BaseError(
      'BROWSER_WALLET_UNAVAILABLE',
      'No wallet found in this browser. Install or unlock an Ethereum wallet extension, then reload.',
    )
  const accounts = (await eth.request({ method: 'eth_requestAccounts' })) as string[] | null
  if (!accounts?.length) throw new BaseError('BROWSER_WALLET_UNAVAILABLE', 'The wallet shared no account.')
  const address = accounts[0]!
  const chainHex = (await eth.request({ method: 'eth_chainId' })) as string
  const m = await api<SiweMessage>('POST', dashboardPaths.siweMessage, { address, chainId: parseInt(chainHex, 16) })
  box.textContent = 'Check your wallet: sign the sign-in message (it costs nothing).'
  const signature = await eth.request({ method: 'personal_sign', params: [utf8Hex(m.message), address] })
  const s = await api<DashboardSession>('POST', dashboardPaths.siweLogin, { message: m.message, signature })
  box.textContent = ''
  state.session = s
  if (!location.hash || location.hash === '#/') location.hash = '#/keys'
  render()
}

export function signInPage(): void {
  nav.hidden = true
  who.replaceChildren()
  const box = errorBox()
  const btn = h('button', { type: 'button', id: 'connect', text: 'Connect wallet and sign in' })
  btn.addEventListener(
    'click',
    act(btn, box, () => signIn(box)),
  )
  page(
    'Sign in',
    'Sign in with your Ethereum wallet (Sign-In with Ethereum). There is no password and no e-mail: your ' +
      'wallet address is your account, and it owns your partner API keys, command line keys and agents.',
  )
  app.append(
    h(
      'section',
      null,
      btn,
      box,
      window.ethereum ? null : h('p', { class: 'muted', text: 'No wallet detected in this browser yet.' }),
    ),
  )
}

/** The signed-in header: the wallet, sign-out, and the section links (the current one marked). */
export function header(session: DashboardSession): void {
  const box = errorBox()
  const out = h('button', { type: 'button', class: 'secondary', id: 'logout', text: 'Sign out' })
  out.addEventListener(
    'click',
    act(out, box, async () => {
      await api('POST', dashboardPaths.logout)
      state.session = null
      state.secret = state.userSecret = state.agentSecret = null
      render()
    }),
  )
  who.replaceChildren(
    h('span', {
      class: 'mono',
      id: 'wallet',
      title: session.wallet,
      text: `${session.wallet.slice(0, 6)}…${session.wallet.slice(-4)}`,
    }),
    out,
    box,
  )
  nav.hidden = false
  for (const a of nav.querySelectorAll('a')) {
    if (location.hash.indexOf(a.getAttribute('href')!) === 0) a.setAttribute('aria-current', 'page')
    else a.removeAttribute('aria-current')
  }
}
