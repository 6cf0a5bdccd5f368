import type { CreatedPartnerKey, PartnerKeyList } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, secretBox, table, when } from './dom.js'
import { app, page, state } from './state.js'

/** Partner API keys of the wallet: create (the secret once), deactivate, delete (asked twice). */
export function keysPage(): void {
  page(
    'Partner API keys',
    'Send a key in the x-api-key header to the swap API. A key ' +
      'has no scopes and no spend limit: keep it on your backend.',
  )
  const box = errorBox()
  const name = h('input', { id: 'key-name', name: 'name', required: true, maxlength: '64', autocomplete: 'off' })
  const desc = h('input', { id: 'key-description', name: 'description', maxlength: '280', autocomplete: 'off' })
  const create = h('button', { type: 'submit', id: 'key-create', text: 'Create key' })
  const form = h(
    'form',
    { 'aria-label': 'Create a partner key' },
    h('label', null, 'Name', name),
    h('label', null, 'Description (optional)', desc),
    create,
  )
  const fresh = h('div')
  if (state.secret) fresh.append(secretBox('Your new key', state.secret))
  form.addEventListener(
    'submit',
    act(create, box, async () => {
      const r = await api<CreatedPartnerKey>('POST', dashboardPaths.partnerKeys, {
        name: name.value,
        description: desc.value || undefined,
      })
      state.secret = r.secret
      keysPage()
    }),
  )
  const list = h('div', null, h('p', { class: 'muted', text: 'Loading keys…' }))
  app.append(
    h('section', null, h('h2', { text: 'New key' }), form, box, fresh),
    h('section', null, h('h2', { text: 'Your keys' }), list),
  )
  api<PartnerKeyList>('GET', dashboardPaths.partnerKeys)
    .then((r) => {
      if (!r.keys.length)
        return list.replaceChildren(h('p', { class: 'empty', text: 'No keys yet. Create your first key above.' }))
      const rows = r.keys.map((k) => {
        const rowBox = errorBox()
        const actions = h('td', { class: 'actions' })
        if (k.state === 'active') {
          const off = h('button', {
            type: 'button',
            class: 'secondary',
            text: 'Deactivate',
            'aria-label': `Deactivate ${k.name}`,
          })
          off.addEventListener(
            'click',
            act(off, rowBox, () => api('POST', at(dashboardPaths.partnerKeyDeactivate, { id: k.id })).then(keysPage)),
          )
          actions.append(off)
        }
        const del = h('button', { type: 'button', class: 'danger', text: 'Delete', 'aria-label': `Delete ${k.name}` })
        del.addEventListener(
          'click',
          act(del, rowBox, async () => {
            if (del.dataset.armed !== '1') {
              del.dataset.armed = '1'
              del.textContent = 'Confirm delete'
              del.setAttribute('aria-label', `Confirm delete ${k.name} (the key stops working for good)`)
              return
            }
            await api('DELETE', at(dashboardPaths.partnerKey, { id: k.id }))
            state.secret = null
            keysPage()
          }),
        )
        actions.append(del, rowBox)
        return h(
          'tr',
          { 'data-key-id': k.id },
          h(
            'td',
            { 'data-label': 'Name' },
            h('strong', { text: k.name }),
            k.description ? h('div', { class: 'muted', text: k.description }) : null,
          ),
          h('td', { 'data-label': 'Key', class: 'mono', text: k.masked }),
          h('td', { 'data-label': 'State', class: `state-${k.state}`, text: k.state }),
          h('td', { 'data-label': 'Created', text: when(k.createdAt) }),
          h('td', { 'data-label': 'Last used', text: when(k.lastUsedAt) }),
          actions,
        )
      })
      list.replaceChildren(
        table(null, ['Name', 'Key', 'State', 'Created', 'Last used', ''], rows),
        h('p', { class: 'muted', text: r.propagation }),
      )
    })
    .catch((e: unknown) => list.replaceChildren(failed(e)))
}
