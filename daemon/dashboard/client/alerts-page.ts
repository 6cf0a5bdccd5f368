import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import type { AlertRule, CreateAlertRuleBody, FiredAlert } from '../../../src/sdk/platform/alerts.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, table, when } from './dom.js'
import { app, page } from './state.js'

type AlertsView = { rules: AlertRule[]; alerts: FiredAlert[] }

/** What a rule watches, in words. */
function describe(r: AlertRule): string {
  switch (r.kind) {
    case 'budget':
      return `${r.of === 'user' ? 'Your' : "An agent's"} ${r.window} budget crossed ${r.percent}%`
    case 'payment_above':
      return `A payment above ${r.usd} USD`
    case 'new_payee':
      return `A pay to a host ${r.of === 'user' ? 'none of your agents' : 'the agent'} paid before`
    case 'refusals':
      return `${r.count} refusals within ${r.withinMinutes} minutes`
    case 'spend_rate':
      return `Spend over the last ${r.period} above ${r.factor}× its 7-day average`
  }
}

const KINDS: [CreateAlertRuleBody['kind'], string][] = [
  ['budget', 'Budget crossed at a percent'],
  ['payment_above', 'Payment above an amount'],
  ['new_payee', 'New payee host'],
  ['refusals', 'Refusals within minutes'],
  ['spend_rate', 'Spend rate above its average'],
]

/** A labelled field shown only for the kinds that take it. */
const field = (kinds: string[], label: string, input: HTMLElement) =>
  h('label', { 'data-kinds': kinds.join(' ') }, label, input)

/**
 * The user's alert rules (add, remove) and the alerts they fired, newest first. Alerts never
 * refuse a spend; they are also posted to the webhook URLs of the user's endpoints.
 */
export function alertsPage(): void {
  page(
    'Alerts',
    'Alerts tell you when your agents’ spending crosses a line, once per ' +
      'crossing: here, and as signed webhooks to the webhook URLs of your endpoints.',
  )
  const box = errorBox()
  const kind = h(
    'select',
    { id: 'alert-kind' },
    KINDS.map(([v, t]) => h('option', { value: v, text: t })),
  )
  const percent = h('input', { id: 'alert-percent', type: 'number', min: '1', max: '100', value: '80' })
  const win = h(
    'select',
    { id: 'alert-window' },
    ['hour', 'day', 'week', 'month'].map((w) => h('option', { value: w, text: w, selected: w === 'month' })),
  )
  const usd = h('input', { id: 'alert-usd', inputmode: 'decimal', value: '5', autocomplete: 'off' })
  const count = h('input', { id: 'alert-count', type: 'number', min: '1', max: '1000', value: '3' })
  const minutes = h('input', { id: 'alert-minutes', type: 'number', min: '1', max: '10080', value: '10' })
  const factor = h('input', { id: 'alert-factor', inputmode: 'decimal', value: '3', autocomplete: 'off' })
  const period = h(
    'select',
    { id: 'alert-period' },
    ['day', 'hour'].map((p) => h('option', { value: p, text: p })),
  )
  const add = h('button', { type: 'submit', id: 'alert-add', text: 'Add rule' })
  const fields = [
    field(['budget'], 'Percent of the budget', percent),
    field(['budget'], 'Window (your budget across all agents)', win),
    field(['payment_above'], 'USD', usd),
    field(['refusals'], 'Refusals', count),
    field(['refusals'], 'Within minutes', minutes),
    field(['spend_rate'], 'Times the 7-day average', factor),
    field(['spend_rate'], 'Period', period),
  ]
  // Only the chosen kind's fields are in the form (the page's CSS lays labels out whatever `hidden` says).
  const form = h('form', { 'aria-label': 'Add an alert rule' })
  const kindLabel = h('label', null, 'Alert me on', kind)
  const show = () =>
    form.replaceChildren(kindLabel, ...fields.filter((f) => f.dataset.kinds!.split(' ').includes(kind.value)), add)
  kind.addEventListener('change', show)
  show()
  form.addEventListener(
    'submit',
    act(add, box, async () => {
      const body: CreateAlertRuleBody =
        kind.value === 'budget'
          ? { kind: 'budget', percent: Number(percent.value), window: win.value as 'month' }
          : kind.value === 'payment_above'
            ? { kind: 'payment_above', usd: usd.value }
            : kind.value === 'new_payee'
              ? { kind: 'new_payee' }
              : kind.value === 'refusals'
                ? { kind: 'refusals', count: Number(count.value), withinMinutes: Number(minutes.value) }
                : { kind: 'spend_rate', factor: factor.value, period: period.value as 'day' }
      await api('POST', dashboardPaths.alerts, body)
      alertsPage()
    }),
  )
  const rules = h('div', null, h('p', { class: 'muted', text: 'Loading rules…' }))
  const fired = h('div', null, h('p', { class: 'muted', text: 'Loading alerts…' }))
  app.append(
    h('section', null, h('h2', { text: 'New rule' }), form, box),
    h('section', null, h('h2', { text: 'Your rules' }), rules),
    h('section', null, h('h2', { text: 'Fired alerts' }), fired),
  )
  api<AlertsView>('GET', dashboardPaths.alerts)
    .then((v) => {
      if (!v.rules.length) rules.replaceChildren(h('p', { class: 'empty', text: 'No alert rules yet. Add one above.' }))
      else
        rules.replaceChildren(
          table(
            { id: 'alert-rules' },
            ['Rule', 'Watches', 'Added', ''],
            v.rules.map((r) => {
              const rowBox = errorBox()
              const remove = h('button', {
                type: 'button',
                class: 'danger',
                text: 'Remove',
                'aria-label': `Remove rule: ${describe(r)}`,
              })
              remove.addEventListener(
                'click',
                act(remove, rowBox, () => api('DELETE', at(dashboardPaths.alertRule, { id: r.id })).then(alertsPage)),
              )
              return h(
                'tr',
                { 'data-rule-id': r.id },
                h('td', { 'data-label': 'Rule', text: describe(r) }),
                h('td', { 'data-label': 'Watches', class: r.agentId ? 'mono' : null, text: r.agentId ?? 'all agents' }),
                h('td', { 'data-label': 'Added', text: when(r.createdAt) }),
                h('td', { class: 'actions' }, remove, rowBox),
              )
            }),
          ),
        )
      if (!v.alerts.length) fired.replaceChildren(h('p', { class: 'empty', text: 'No alerts fired yet.' }))
      else
        fired.replaceChildren(
          table(
            { id: 'alert-history' },
            ['When', 'Kind', 'Alert'],
            v.alerts.map((a) =>
              h(
                'tr',
                { 'data-alert-id': a.id },
                h('td', { 'data-label': 'When', text: when(a.firedAt) }),
                h('td', { 'data-label': 'Kind', text: a.kind }),
                h('td', { 'data-label': 'Alert', text: a.message }),
              ),
            ),
          ),
        )
    })
    .catch((e: unknown) => {
      rules.replaceChildren(failed(e))
      fired.replaceChildren()
    })
}
