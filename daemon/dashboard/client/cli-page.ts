import type { CreatedUserKey, UserKeyList } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import { api, at } from './api.js'
import { act, errorBox, failed, h, secretBox, table, when } from './dom.js'
import { app, page, state } from './state.js'

/** Command line access: user keys for `parx auth user login`. */
export function cliPage(): void {
  page('Command line access', 'A user key lets the parx command line act as you: your agents and seller endpoints.')
  const box = errorBox()
  const create = h('button', { type: 'button', id: 'user-key-create', text: 'Create a command line key' })
  create.addEventListener(
    'click',
    act(create, box, async () => {
      state.userSecret = (await api<CreatedUserKey>('POST', dashboardPaths.userKeys)).userKey
      cliPage()
    }),
  )
  const fresh = h('div')
  if (state.userSecret)
    fresh.append(
      secretBox(
        'Your new command line key',
        state.userSecret,
        h('p', null, 'Then run: ', h('code', { text: `parx auth user login --user-key ${state.userSecret}` })),
      ),
    )
  const list = h('div', null, h('p', { class: 'muted', text: 'Loading keys…' }))
  app.append(
    h('section', null, create, box, fresh),
    h('section', null, h('h2', { text: 'Your command line keys' }), list),
  )
  api<UserKeyList>('GET', dashboardPaths.userKeys)
    .then((r) => {
      if (!r.keys.length) return list.replaceChildren(h('p', { class: 'empty', text: 'No command line keys yet.' }))
      list.replaceChildren(
        table(
          null,
          ['Key', 'Created', 'State', ''],
          r.keys.map((k) => {
            const rowBox = errorBox()
            const cell = h('td', { class: 'actions' })
            if (!k.revokedAt) {
              const rv = h('button', {
                type: 'button',
                class: 'danger',
                text: 'Revoke',
                'aria-label': `Revoke ${k.masked}`,
              })
              rv.addEventListener(
                'click',
                act(rv, rowBox, async () => {
                  await api('DELETE', at(dashboardPaths.userKey, { id: k.id }))
                  state.userSecret = null
                  cliPage()
                }),
              )
              cell.append(rv)
            }
            cell.append(rowBox)
            return h(
              'tr',
              { 'data-user-key-id': k.id },
              h('td', { 'data-label': 'Key', class: 'mono', text: k.masked }),
              h('td', { 'data-label': 'Created', text: when(k.createdAt) }),
              h('td', {
                'data-label': 'State',
                class: k.revokedAt ? 'state-revoked' : 'state-active',
                text: k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'active',
              }),
              cell,
            )
          }),
        ),
      )
    })
    .catch((e: unknown) => list.replaceChildren(failed(e)))
}
