import type { AgentsPage } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import type { Agent } from '../../../src/sdk/platform/agents.js'
import { api } from './api.js'
import { act, errorBox, failed, h, table, when } from './dom.js'
import { app, page } from './state.js'

/** The wallet's agents: the list, and a form to create one on a network this server serves. */
export function agentsPage(): void {
  page(
    'Agents',
    'An agent is a wallet the platform holds for you on one network; ' +
      'software uses it with an agent key, within the limits you set.',
  )
  const box = errorBox()
  const list = h('div', null, h('p', { class: 'muted', text: 'Loading agents…' }))
  const formSlot = h('div')
  app.append(
    h('section', null, h('h2', { text: 'New agent' }), formSlot, box),
    h('section', null, h('h2', { text: 'Your agents' }), list),
  )
  api<AgentsPage>('GET', dashboardPaths.agents)
    .then((r) => {
      const name = h('input', { id: 'agent-name', required: true, maxlength: '64', autocomplete: 'off' })
      const net = h(
        'select',
        { id: 'agent-network' },
        r.networks.map((n) => h('option', { value: n, text: n })),
      )
      const create = h('button', { type: 'submit', id: 'agent-create', text: 'Create agent', disabled: !r.canCreate })
      const form = h(
        'form',
        { 'aria-label': 'Create an agent' },
        h('label', null, 'Name', name),
        h('label', null, 'Network', net),
        create,
      )
      form.addEventListener(
        'submit',
        act(create, box, async () => {
          const a = await api<Agent>('POST', dashboardPaths.agents, { name: name.value, network: net.value })
          location.hash = `#/agents/${a.id}`
        }),
      )
      formSlot.replaceChildren(
        h(
          'div',
          null,
          form,
          r.canCreate
            ? null
            : h('p', {
                class: 'muted',
                text: 'This server has no platform wallet key configured, so agents cannot be created here.',
              }),
        ),
      )
      if (!r.agents.length)
        return list.replaceChildren(h('p', { class: 'empty', text: 'No agents yet. Create one above.' }))
      list.replaceChildren(
        table(
          null,
          ['Name', 'Network', 'Wallet', 'Created'],
          r.agents.map((a) =>
            h(
              'tr',
              null,
              h('td', { 'data-label': 'Name' }, h('a', { href: `#/agents/${a.id}`, text: a.name })),
              h('td', { 'data-label': 'Network', text: a.network }),
              h('td', { 'data-label': 'Wallet', class: 'mono', text: a.wallet }),
              h('td', { 'data-label': 'Created', text: when(a.createdAt) }),
            ),
          ),
        ),
      )
    })
    .catch((e: unknown) => list.replaceChildren(failed(e)))
}
