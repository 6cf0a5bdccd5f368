import { SiweMessage } from 'siwe'
import type { PrivateKeyAccount } from 'viem/accounts'

export type DashResponse = { status: number; body: any; setCookie: string | null }

/**
 * A browser-like client of the dashboard's JSON routes for route-level tests: it keeps the session
 * cookie as a browser would and sends the CSRF token it was given unless told not to.
 */
export function dashboardClient(api: string) {
  let cookie: string | undefined
  let csrf: string | undefined
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    opts: { csrf?: string | null } = {},
  ): Promise<DashResponse> => {
    const headers: Record<string, string> = { accept: 'application/json' }
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (cookie) headers.cookie = cookie
    const token = opts.csrf === undefined ? csrf : opts.csrf
    if (token) headers['x-csrf-token'] = token
    const res = await fetch(`${api}/dashboard/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const setCookie = res.headers.get('set-cookie')
    if (setCookie) {
      const [pair] = setCookie.split(';')
      cookie = /Max-Age=0/i.test(setCookie) || pair!.endsWith('=') ? undefined : pair
    }
    const text = await res.text()
    let parsed: any = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: res.status, body: parsed, setCookie }
  }
  return {
    call,
    get cookie() {
      return cookie
    },
    set cookie(v: string | undefined) {
      cookie = v
    },
    get csrf() {
      return csrf
    },
    /** The message the daemon writes for this account, signed; `tweak` edits it before signing (bad domains, times...). */
    async signedMessage(account: PrivateKeyAccount, chainId: number, tweak?: (m: SiweMessage) => void) {
      const r = await call('POST', '/siwe/message', { address: account.address, chainId })
      if (r.status !== 200) throw new Error(`siwe/message: ${r.status} ${JSON.stringify(r.body)}`)
      let message: string = r.body.message
      if (tweak) {
        const m = new SiweMessage(message)
        tweak(m)
        message = m.prepareMessage()
      }
      return { message, signature: await account.signMessage({ message }) }
    },
    async login(signed: { message: string; signature: string }) {
      const r = await call('POST', '/siwe/login', signed)
      if (r.status === 200) csrf = r.body.csrfToken
      return r
    },
    async signIn(account: PrivateKeyAccount, chainId: number) {
      const r = await this.login(await this.signedMessage(account, chainId))
      if (r.status !== 200) throw new Error(`siwe/login: ${r.status} ${JSON.stringify(r.body)}`)
      return r
    },
  }
}
