import type { AgentDetail, CreatedAgentKey } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import type { Spending } from '../../../src/sdk/dashboard/spending.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, secretBox, table, when } from './dom.js'
import { paymentsList } from './payments-list.js'
import { rulesSection } from './rules-section.js'
import { spendChart } from './spend-chart.js'
import { app, page, state } from './state.js'

/** One agent: wallet and balances, freeze, limits and budget windows, payee rules, spending per day, keys, payments. */
export function agentPage(id: string): void {
  page('Agent', null)
  const body = h('div', null, h('p', { class: 'muted', text: 'Loading agent…' }))
  app.append(h('p', null, h('a', { href: '#/agents', text: '← All agents' })), body)
  api<AgentDetail>('GET', at(dashboardPaths.agent, { id }))
    .then((d) => {
      app.querySelector('h1')!.textContent = `Agent ${d.agent.name}`
      body.replaceChildren(
        walletSection(d),
        freezeSection(id, d),
        limitsSection(id, d),
        rulesSection(id, d, () => agentPage(id)),
        spendingSection(id),
        keysSection(id, d),
        h('section', null, h('h2', { text: 'Payments' }), paymentsList(id)),
      )
    })
    .catch((e: unknown) => body.replaceChildren(failed(e)))
}

function walletSection(d: AgentDetail): HTMLElement {
  const a = d.agent
  const bal = d.balance
    ? h(
        'dl',
        { id: 'balances' },
        d.balance.tokens.map((t) => [h('dt', { text: t.symbol }), h('dd', { text: t.amount })]),
        h('dt', { text: `${d.balance.native.symbol} (gas)` }),
        h('dd', { text: d.balance.native.amount }),
      )
    : h('p', { class: 'error', role: 'alert', text: `Balances unavailable: ${d.balanceError}` })
  return h(
    'section',
    null,
    h('h2', { text: 'Wallet' }),
    h(
      'dl',
      null,
      h('dt', { text: 'Address' }),
      h('dd', { class: 'mono', id: 'agent-wallet', text: a.wallet }),
      h('dt', { text: 'Network' }),
      h('dd', { text: `${a.network} (chain ${a.chainId})` }),
      h('dt', { text: 'Sends by' }),
      h('dd', {
        text: a.sendMethod === 'userOperation' ? 'sponsored user operation (no gas needed)' : 'plain transfer',
      }),
    ),
    h('h2', { text: 'Balances' }),
    bal,
  )
}

/**
 * The owner's stop switch: a frozen agent signs nothing new until unfrozen (here, or with the user key unless the
 * deployment requires the dashboard).
 */
function freezeSection(id: string, d: AgentDetail): HTMLElement {
  const box = errorBox()
  const frozen = d.agent.frozen
  const button = h('button', {
    type: 'button',
    id: frozen ? 'agent-unfreeze' : 'agent-freeze',
    text: frozen ? 'Unfreeze' : 'Freeze now',
  })
  button.addEventListener(
    'click',
    act(button, box, async () => {
      await api('POST', at(frozen ? dashboardPaths.agentUnfreeze : dashboardPaths.agentFreeze, { id }))
      agentPage(id)
    }),
  )
  const text = frozen
    ? `Frozen since ${d.agent.frozenAt}: its pays, sends, swaps and channel ` +
      `deposits are refused (AGENT_FROZEN). Payments signed before still complete.`
    : 'Freezing refuses every new pay, send, swap and channel deposit at once, on every server.'
  return h(
    'section',
    null,
    h('h2', { text: 'Freeze' }),
    h('p', { id: 'freeze-state', class: frozen ? 'error' : 'muted', text }),
    button,
    box,
  )
}

function limitsSection(id: string, d: AgentDetail): HTMLElement {
  const box = errorBox()
  const field = (idn: string, label: string, value: string | null, hint: string) =>
    h('label', null, label, h('input', { id: idn, value: value ?? '', placeholder: hint, autocomplete: 'off' }))
  const save = h('button', { type: 'submit', id: 'limits-save', text: 'Save limits' })
  const form = h(
    'form',
    { 'aria-label': 'Spending limits' },
    field('limit-per-payment', 'Per payment (USD)', d.limits.perPaymentUsd, 'no limit'),
    field('limit-hourly', 'Per rolling hour (USD)', d.limits.hourlyUsd, 'no limit'),
    field('limit-daily', 'Per rolling day (USD)', d.limits.dailyUsd, 'no limit'),
    field('limit-weekly', 'Per rolling 7 days (USD)', d.limits.weeklyUsd, 'no limit'),
    field('limit-monthly', 'Per rolling 30 days (USD)', d.limits.monthlyUsd, 'no limit'),
    field('limit-approve-above', 'Ask me above (USD)', d.limits.approveAboveUsd, 'never ask'),
    save,
  )
  form.addEventListener(
    'submit',
    act(save, box, async () => {
      const v = (x: string) => {
        const t = form.querySelector<HTMLInputElement>(`#${x}`)!.value.trim()
        return t === '' ? null : t
      }
      // The hosts allow-list is edited with the other rules (rules-section.ts): it is one list with the policy's
      // allowHosts.
      await api('POST', at(dashboardPaths.agentLimits, { id }), {
        perPaymentUsd: v('limit-per-payment'),
        hourlyUsd: v('limit-hourly'),
        dailyUsd: v('limit-daily'),
        weeklyUsd: v('limit-weekly'),
        monthlyUsd: v('limit-monthly'),
        approveAboveUsd: v('limit-approve-above'),
      })
      agentPage(id)
    }),
  )
  const may = d.limits.mayStillSpendUsd === null ? 'no limit' : `${d.limits.mayStillSpendUsd} USD`
  const ask =
    d.limits.approveAboveUsd === null
      ? 'No payment waits for your approval.'
      : `Pays and sends above ${d.limits.approveAboveUsd} USD wait for your approval (Approvals).`
  const spent =
    `What one payment may be now (this agent's limits and your budgets ` +
    `across all your agents): ${may}. ${ask} Leave a field empty for no limit.`
  return h(
    'section',
    null,
    h('h2', { text: 'Spending limits' }),
    windowsTable(d),
    h('p', { class: 'muted', text: spent }),
    form,
    box,
  )
}

/**
 * The per-payment limit and each rolling window, the agent's own and the user's over all its
 * agents: limit, what counts, what is left (a per-payment limit counts nothing: it caps each one).
 */
function windowsTable(d: AgentDetail): HTMLElement {
  const cell = (label: string, text: string) => h('td', { 'data-label': label, text })
  const rows = (['agent', 'user'] as const).flatMap((scope) => {
    const w = scope === 'agent' ? d.limits.windows : d.limits.user.windows
    const who = scope === 'agent' ? 'this agent' : 'all your agents'
    const perPayment = scope === 'agent' ? d.limits.perPaymentUsd : d.limits.user.perPaymentUsd
    return [
      h(
        'tr',
        { 'data-window': `${scope}-payment` },
        cell('Scope', who),
        cell('Window', 'each payment'),
        cell('Limit', perPayment ?? 'none'),
        cell('Spent', '—'),
        cell('Left', '—'),
      ),
      ...(['hour', 'day', 'week', 'month'] as const).map((k) =>
        h(
          'tr',
          { 'data-window': `${scope}-${k}` },
          cell('Scope', who),
          cell('Window', k === 'month' ? 'month (30 days)' : k),
          cell('Limit', w[k].limitUsd ?? 'none'),
          cell('Spent', w[k].spentUsd),
          cell('Left', w[k].remainingUsd ?? '—'),
        ),
      ),
    ]
  })
  return table({ id: 'limit-windows' }, ['Scope', 'Window', 'Limit (USD)', 'Spent (USD)', 'Left (USD)'], rows)
}

function spendingSection(id: string): HTMLElement {
  const slot = h('div', null, h('p', { class: 'muted', text: 'Loading spending…' }))
  api<Spending>('GET', at(dashboardPaths.agentSpending, { id }))
    .then((r) => slot.replaceChildren(spendChart(r)))
    .catch((e: unknown) => slot.replaceChildren(failed(e)))
  return h(
    'section',
    null,
    h('h2', { text: 'Spending per day' }),
    h('p', {
      class: 'muted',
      text:
        'The last 30 days in UTC days; pays, sends and swaps, with payments still pending on chain ' +
        '(as the limits count them). The line is the daily limit, which holds over any 24 hours.',
    }),
    slot,
  )
}

function keysSection(id: string, d: AgentDetail): HTMLElement {
  const box = errorBox()
  const label = h('input', { id: 'agent-key-label', maxlength: '64', autocomplete: 'off' })
  const create = h('button', { type: 'submit', id: 'agent-key-create', text: 'Create agent key' })
  const form = h('form', { 'aria-label': 'Create an agent key' }, h('label', null, 'Label (optional)', label), create)
  form.addEventListener(
    'submit',
    act(create, box, async () => {
      const r = await api<CreatedAgentKey>('POST', at(dashboardPaths.agentKeys, { id }), {
        label: label.value || undefined,
      })
      state.agentSecret = { agent: id, key: r.agentKey }
      agentPage(id)
    }),
  )
  const secret =
    state.agentSecret && state.agentSecret.agent === id
      ? secretBox(
          'Your new agent key',
          state.agentSecret.key,
          h('p', null, 'Then run: ', h('code', { text: `parx agent login --agent-key ${state.agentSecret.key}` })),
        )
      : null
  const keys = d.keys.length
    ? table(
        null,
        ['Key', 'Label', 'Created', 'Last used', 'State', ''],
        d.keys.map((k) => {
          const rowBox = errorBox()
          const cell = h('td', { class: 'actions' })
          if (!k.revokedAt) {
            const rv = h('button', {
              type: 'button',
              class: 'danger',
              text: 'Revoke',
              'aria-label': `Revoke ${k.hint}`,
            })
            rv.addEventListener(
              'click',
              act(rv, rowBox, async () => {
                await api('DELETE', at(dashboardPaths.agentKey, { id, keyId: k.id }))
                state.agentSecret = null
                agentPage(id)
              }),
            )
            cell.append(rv)
          }
          cell.append(rowBox)
          return h(
            'tr',
            { 'data-agent-key-id': k.id },
            h('td', { 'data-label': 'Key', class: 'mono', text: k.hint }),
            h('td', { 'data-label': 'Label', text: k.label ?? '' }),
            h('td', { 'data-label': 'Created', text: when(k.createdAt) }),
            h('td', { 'data-label': 'Last used', text: when(k.lastUsedAt) }),
            h('td', {
              'data-label': 'State',
              class: k.revokedAt ? 'state-revoked' : 'state-active',
              text: k.revokedAt ? 'revoked' : 'active',
            }),
            cell,
          )
        }),
      )
    : h('p', { class: 'empty', text: 'No agent keys yet: create one to let software use this agent.' })
  return h('section', null, h('h2', { text: 'Agent keys' }), form, box, secret, keys)
}
