/**
 * The dashboard's script, bundled by scripts/build.js into dist/dashboard/app.js and served by the
 * daemon at /dashboard/app.js (no CDN: it loads with no internet; no inline script: the page's CSP
 * refuses it). It speaks the JSON routes of src/sdk/dashboard/, typed against that contract, and an
 * injected EIP-1193 wallet (window.ethereum) for sign-in. One module per page; the hash is the route.
 */
import type { DashboardSession } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { agentPage } from './agent-page.js'
import { agentsPage } from './agents-page.js'
import { alertsPage } from './alerts-page.js'
import { api } from './api.js'
import { APPROVALS_HASH, approvalsPage } from './approvals-page.js'
import { cliPage } from './cli-page.js'
import { keysPage } from './keys-page.js'
import { header, signInPage } from './sign-in.js'
import { setRender, state } from './state.js'

function render(): void {
  if (!state.session) return signInPage()
  header(state.session)
  const hash = location.hash || '#/keys'
  const agent = /^#\/agents\/([0-9a-f-]{36})$/.exec(hash)
  if (agent) return agentPage(agent[1]!)
  if (hash === '#/cli') return cliPage()
  if (hash === '#/agents') return agentsPage()
  if (hash === APPROVALS_HASH) return approvalsPage()
  if (hash === '#/alerts') return alertsPage()
  return keysPage()
}

setRender(render)
window.addEventListener('hashchange', render)
// The first render, once the session is known; nothing awaits a page script's start (a render that
// throws reaches the console, as one from hashchange does).
void api<DashboardSession>('GET', dashboardPaths.session)
  .then(
    (s) => {
      state.session = s
    },
    () => {
      state.session = null
    },
  )
  .then(render)
