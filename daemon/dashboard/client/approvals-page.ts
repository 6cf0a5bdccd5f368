import type { DashboardApproval, DashboardApprovals } from '../../../src/sdk/dashboard/approvals.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, table, when } from './dom.js'
import { app, page } from './state.js'

export const APPROVALS_HASH = '#/approvals'
/** How often the open view asks for new approvals: an agent is waiting on the other side. */
const REFRESH_MS = 5000

let timer: ReturnType<typeof setInterval> | undefined

/**
 * Pays and sends above an agent's "ask me above" amount, held with nothing signed: approve (the
 * agent's retry, or its `pay --wait-approval`, then pays once within its limits as they are then)
 * or deny (never signed). The lists refresh while the view is open; a row's buttons act on that
 * approval only, and a decision that came too late (expired, or decided elsewhere) is said in its row.
 */
export function approvalsPage(): void {
  page(
    'Approvals',
    'Payments your agents asked for above the amount you set on each agent ("Ask me above"). ' +
      'Nothing is signed until you approve; an approval expires if nobody decides in time.',
  )
  const box = errorBox()
  const refresh = h('button', { type: 'button', class: 'secondary', id: 'approvals-refresh', text: 'Refresh' })
  const pending = h(
    'div',
    { id: 'approvals-pending', 'aria-live': 'polite' },
    h('p', { class: 'muted', text: 'Loading approvals…' }),
  )
  const decided = h('div', { id: 'approvals-decided' })
  app.append(
    h('section', null, h('h2', { text: 'Waiting for you' }), refresh, box, pending),
    h('section', null, h('h2', { text: 'Recently decided' }), decided),
  )

  let shown = ''
  let busy = false
  const load = async () => {
    const r = await api<DashboardApprovals>('GET', dashboardPaths.approvals)
    // Unchanged: leave the rows (and the focus, and an error said in a row) as they are.
    const json = JSON.stringify(r)
    if (json === shown) return
    shown = json
    pending.replaceChildren(
      r.pending.length
        ? pendingTable(r.pending, decide)
        : h('p', { class: 'empty', text: 'Nothing is waiting for your approval.' }),
    )
    decided.replaceChildren(
      r.decided.length ? decidedTable(r.decided) : h('p', { class: 'empty', text: 'No approvals decided yet.' }),
    )
  }
  const decide = async (a: DashboardApproval, decision: 'approve' | 'deny') => {
    busy = true
    try {
      await api(
        'POST',
        at(decision === 'approve' ? dashboardPaths.approvalApprove : dashboardPaths.approvalDeny, { approvalId: a.id }),
      )
    } finally {
      busy = false
    }
    await load()
  }
  refresh.addEventListener('click', act(refresh, box, load))
  load().catch((e: unknown) => pending.replaceChildren(failed(e)))
  if (timer) clearInterval(timer)
  timer = setInterval(() => {
    if (location.hash !== APPROVALS_HASH) return void clearInterval(timer)
    if (busy || document.hidden) return
    load().catch((e: unknown) => {
      box.textContent = e instanceof Error ? e.message : String(e)
    })
  }, REFRESH_MS)
}

const payee = (a: DashboardApproval) => a.host ?? a.target
const amount = (a: DashboardApproval) => `${a.amount} ${a.token}`
const agentCell = (a: DashboardApproval) =>
  h('td', { 'data-label': 'Agent' }, h('a', { href: `#/agents/${a.agentId}`, text: a.agentName }))

function pendingTable(
  rows: DashboardApproval[],
  decide: (a: DashboardApproval, d: 'approve' | 'deny') => Promise<void>,
): HTMLTableElement {
  return table(
    { id: 'approvals' },
    ['Agent', 'Kind', 'Pays', 'Amount', 'Asked', 'Expires', ''],
    rows.map((a) => {
      const rowBox = errorBox()
      const yes = h('button', {
        type: 'button',
        class: 'approve',
        text: 'Approve',
        'aria-label': `Approve ${amount(a)} to ${payee(a)} for ${a.agentName}`,
      })
      const no = h('button', {
        type: 'button',
        class: 'danger deny',
        text: 'Deny',
        'aria-label': `Deny ${amount(a)} to ${payee(a)} for ${a.agentName}`,
      })
      // Both buttons stay disabled while either decision is under way: one decision per approval.
      const both = (fn: () => Promise<void>) => async () => {
        no.disabled = yes.disabled = true
        try {
          await fn()
        } finally {
          no.disabled = yes.disabled = false
        }
      }
      yes.addEventListener(
        'click',
        act(
          null,
          rowBox,
          both(() => decide(a, 'approve')),
        ),
      )
      no.addEventListener(
        'click',
        act(
          null,
          rowBox,
          both(() => decide(a, 'deny')),
        ),
      )
      return h(
        'tr',
        { 'data-approval-id': a.id, 'data-state': a.state },
        agentCell(a),
        h('td', { 'data-label': 'Kind', text: a.kind }),
        h('td', {
          'data-label': 'Pays',
          class: 'mono',
          text: payee(a),
          title: a.kind === 'pay' ? `${a.method ?? 'GET'} ${a.target}` : undefined,
        }),
        h('td', { 'data-label': 'Amount', text: amount(a) }, h('div', { class: 'muted', text: `${a.amountUsd} USD` })),
        h('td', { 'data-label': 'Asked', text: when(a.createdAt) }),
        h('td', { 'data-label': 'Expires', text: when(a.expiresAt), 'data-expires-at': a.expiresAt }),
        h('td', { class: 'actions' }, yes, no, rowBox),
      )
    }),
  )
}

function decidedTable(rows: DashboardApproval[]): HTMLTableElement {
  const what: Record<DashboardApproval['state'], string> = {
    pending: 'pending',
    approved: 'approved (not used yet)',
    consumed: 'approved and paid',
    denied: 'denied',
    expired: 'expired',
  }
  return table(
    { id: 'approvals-history' },
    ['Agent', 'Kind', 'Pays', 'Amount', 'Decision', 'When'],
    rows.map((a) =>
      h(
        'tr',
        { 'data-approval-id': a.id, 'data-state': a.state },
        agentCell(a),
        h('td', { 'data-label': 'Kind', text: a.kind }),
        h('td', { 'data-label': 'Pays', class: 'mono', text: payee(a) }),
        h('td', { 'data-label': 'Amount', text: amount(a) }),
        h('td', { 'data-label': 'Decision', class: `state-${a.state}`, text: what[a.state] }),
        h('td', { 'data-label': 'When', text: when(a.consumedAt ?? a.decidedAt ?? a.expiresAt) }),
      ),
    ),
  )
}
