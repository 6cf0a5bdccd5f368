import type { DashboardSession } from '../../../src/sdk/dashboard/fields.js'
import { h } from './dom.js'

/** What the page remembers between renders: the session, and a secret just created (shown once). */
export const state: {
  session: DashboardSession | null
  secret: string | null
  userSecret: string | null
  agentSecret: { agent: string; key: string } | null
} = { session: null, secret: null, userSecret: null, agentSecret: null }

/** The page's fixed parts (daemon/dashboard/page/html.ts); the script is deferred, so they exist. */
export const app = document.getElementById('app')!
export const who = document.getElementById('who')!
export const nav = document.getElementById('nav')!

let renderHook: () => void = () => {}
/** Draws the page for the current hash and session (set by main.ts; modules call it after a change). */
export const render = (): void => renderHook()
export const setRender = (fn: () => void): void => {
  renderHook = fn
}

/** Starts a page: its heading, an optional intro, focus on the main region (for screen readers and the keyboard). */
export function page(title: string, intro: string | null): void {
  app.replaceChildren(h('h1', { text: title }))
  if (intro) app.append(h('p', { class: 'muted', text: intro }))
  app.focus()
}
