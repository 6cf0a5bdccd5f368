import type { PaymentsPage } from '../../../src/sdk/dashboard/payments.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, table, when } from './dom.js'

/** Rows per page on the agent page: a screenful. The API allows up to 200 (PAYMENTS_PAGE.max). */
export const PAGE_SIZE = 10

type Filters = { kind: string; host: string; since: string }

/**
 * The agent's payments, filtered (kind, seller host, since a UTC day) and paged newest first. Pages
 * follow the API's cursors (keyset: a payment made meanwhile never shifts a page); the cursors seen
 * are kept so "Newer" goes back without the API paging backwards.
 */
export function paymentsList(agentId: string): HTMLElement {
  const box = errorBox()
  const kind = h(
    'select',
    { id: 'payments-kind' },
    h('option', { value: '', text: 'All kinds' }),
    ['pay', 'send', 'swap'].map((k) => h('option', { value: k, text: k })),
  )
  const host = h('input', { id: 'payments-host', placeholder: 'any host', autocomplete: 'off', maxlength: '260' })
  const since = h('input', { id: 'payments-since', type: 'date' })
  const apply = h('button', { type: 'submit', id: 'payments-apply', text: 'Filter' })
  const clear = h('button', { type: 'button', class: 'secondary', id: 'payments-clear', text: 'Clear' })
  const form = h(
    'form',
    { id: 'payments-filter', 'aria-label': 'Filter payments' },
    h('label', null, 'Kind', kind),
    h('label', null, 'Seller host (pay)', host),
    h('label', null, 'Since (UTC day)', since),
    apply,
    clear,
  )
  const list = h('div', { 'aria-live': 'polite' }, h('p', { class: 'muted', text: 'Loading payments…' }))
  const newer = h('button', { type: 'button', class: 'secondary', id: 'payments-newer', text: '← Newer' })
  const older = h('button', { type: 'button', class: 'secondary', id: 'payments-older', text: 'Older →' })
  const where = h('span', { id: 'payments-page', class: 'muted' })
  const pager = h('p', { class: 'pager' }, newer, where, older)

  let filters: Filters = { kind: '', host: '', since: '' }
  // cursors[i] opens page i (undefined: the newest page).
  let cursors: (string | undefined)[] = [undefined]
  let index = 0

  // Shows page `to`; the page shown changes only once it has loaded (a failure leaves it as it was).
  const load = async (to = 0) => {
    const r = await api<PaymentsPage>(
      'GET',
      at(
        dashboardPaths.agentPayments,
        { id: agentId },
        {
          kind: filters.kind,
          host: filters.host,
          since: filters.since,
          limit: String(PAGE_SIZE),
          cursor: cursors[to],
        },
      ),
    )
    index = to
    if (r.nextCursor) cursors[index + 1] = r.nextCursor
    const filtered = Boolean(filters.kind || filters.host || filters.since)
    list.replaceChildren(
      r.payments.length
        ? paymentsTable(r)
        : h('p', { class: 'empty', text: filtered ? 'No payments match these filters.' : 'No payments yet.' }),
    )
    newer.disabled = index === 0
    older.disabled = !r.nextCursor
    pager.hidden = index === 0 && !r.nextCursor
    where.textContent = `Page ${index + 1}`
  }
  form.addEventListener(
    'submit',
    act(apply, box, () => {
      filters = { kind: kind.value, host: host.value.trim(), since: since.value }
      cursors = [undefined]
      return load()
    }),
  )
  clear.addEventListener(
    'click',
    act(clear, box, () => {
      form.reset()
      filters = { kind: '', host: '', since: '' }
      cursors = [undefined]
      return load()
    }),
  )
  // No button passed to act(): it would enable the button again after the page set it.
  older.addEventListener(
    'click',
    act(null, box, () => load(index + 1)),
  )
  newer.addEventListener(
    'click',
    act(null, box, () => load(Math.max(0, index - 1))),
  )
  pager.hidden = true
  load().catch((e: unknown) => list.replaceChildren(failed(e)))
  return h('div', null, form, box, list, pager)
}

function paymentsTable(r: PaymentsPage): HTMLTableElement {
  return table(
    { id: 'payments' },
    ['When', 'Kind', 'Amount', 'Seller host', 'To', 'State', 'Transaction'],
    r.payments.map((p) =>
      h(
        'tr',
        { 'data-payment-id': p.id, 'data-kind': p.kind },
        h('td', { 'data-label': 'When', text: when(p.createdAt) }),
        h('td', { 'data-label': 'Kind', text: p.kind }),
        h(
          'td',
          { 'data-label': 'Amount', text: `${p.amount} ${p.token}` },
          p.hold ? h('div', { class: 'muted hold', text: holdText(p.hold) }) : null,
        ),
        h('td', { 'data-label': 'Seller host', class: 'mono', text: p.host ?? '' }),
        h('td', { 'data-label': 'To', class: 'mono', text: p.recipient ?? '' }),
        h('td', { 'data-label': 'State', text: p.state, title: p.reason ?? undefined }),
        h('td', { 'data-label': 'Transaction', class: 'mono', text: p.tx ?? '' }),
      ),
    ),
  )
}

/**
 * An auth-capture payment's hold (docs/platform-api.md "Paying with auth-capture"): held, captured, and what came back.
 */
export function holdText(x: NonNullable<PaymentsPage['payments'][number]['hold']>): string {
  const back = (
    [
      ['voided', x.voided],
      ['refunded', x.refunded],
      ['reclaimed', x.reclaimed],
    ] as const
  )
    .filter(([, v]) => v !== '0')
    .map(([k, v]) => `${k} ${v}`)
  return (
    `hold ${x.held}: captured ` +
    `${x.captured}${back.length ? `, ${back.join(', ')}` : ''}${x.holding !== '0' ? `, still held ${x.holding}` : ''}`
  )
}
