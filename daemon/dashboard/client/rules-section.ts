import type { AgentDetail } from '../../../src/sdk/dashboard/fields.js'
import { dashboardPaths } from '../../../src/sdk/dashboard/routes.js'
import type { PayeeRules, RuleName } from '../../../src/sdk/platform/policy.js'
import { api, at } from './api.js'
import { act, errorBox, h, table } from './dom.js'

/** The eight lists, as the page names them (src/sdk/platform/policy.ts); the form's inputs are `#rule-<name>`. */
const RULES: { name: RuleName; what: string; verb: 'allow' | 'deny'; hint: string }[] = [
  { name: 'allowHosts', what: 'Seller hosts', verb: 'allow', hint: 'api.example.com, *.shop.example' },
  { name: 'denyHosts', what: 'Seller hosts', verb: 'deny', hint: 'bad.example' },
  { name: 'allowPayTo', what: 'payTo addresses', verb: 'allow', hint: '0x…' },
  { name: 'denyPayTo', what: 'payTo addresses', verb: 'deny', hint: '0x…' },
  { name: 'allowNetworks', what: 'Networks', verb: 'allow', hint: 'base, eip155:8453' },
  { name: 'denyNetworks', what: 'Networks', verb: 'deny', hint: 'base-sepolia' },
  { name: 'allowTokens', what: 'Tokens', verb: 'allow', hint: 'USDC' },
  { name: 'denyTokens', what: 'Tokens', verb: 'deny', hint: 'token symbol or address' },
]

const shown = (list: string[] | null) =>
  list === null ? 'not set' : list.length ? list.join(', ') : 'none (set, empty)'

/**
 * The agent's payee and network rules, editable, and its user's (which apply to all its agents,
 * set with `parx user policy`), shown. A field left empty clears that list (not set: no rule);
 * deny wins over allow, and an allow-list that is set refuses what it does not name. Saving sends
 * every list, so what the form shows is exactly what the platform then enforces.
 */
export function rulesSection(id: string, d: AgentDetail, reload: () => void): HTMLElement {
  const box = errorBox()
  const save = h('button', { type: 'submit', id: 'rules-save', text: 'Save rules' })
  const input = (r: (typeof RULES)[number]) =>
    h(
      'label',
      null,
      `${r.verb === 'allow' ? 'Allow' : 'Deny'}: ${r.what} (comma separated)`,
      h('input', {
        id: `rule-${r.name}`,
        value: (d.policy.rules[r.name] ?? []).join(', '),
        placeholder: r.verb === 'allow' ? `any; e.g. ${r.hint}` : `none; e.g. ${r.hint}`,
        autocomplete: 'off',
      }),
    )
  const form = h('form', { id: 'rules-form', 'aria-label': 'Payee and network rules' }, RULES.map(input), save)
  form.addEventListener(
    'submit',
    act(save, box, async () => {
      const body: Partial<Record<RuleName, string[] | null>> = {}
      for (const r of RULES) {
        const parts = form
          .querySelector<HTMLInputElement>(`#rule-${r.name}`)!
          .value.split(',')
          .map((x) => x.trim())
          .filter(Boolean)
        body[r.name] = parts.length ? parts : null
      }
      await api('POST', at(dashboardPaths.agentPolicy, { id }), body)
      reload()
    }),
  )
  return h(
    'section',
    null,
    h('h2', { text: 'Payee and network rules' }),
    h('p', {
      class: 'muted',
      text:
        'Checked before anything is signed, on every pay, send and swap (seller hosts on pays only). Deny ' +
        'wins over allow; an allow-list refuses what it does not name. Leave a field empty for no rule.',
    }),
    rulesTable('agent-rules', d.policy.rules),
    form,
    box,
    h('h3', { text: 'Your rules for all your agents' }),
    h('p', { class: 'muted', text: "They apply beside this agent's own; set them with parx user policy." }),
    rulesTable('user-rules', d.policy.userRules),
  )
}

/**
 * What is enforced now, a row per kind of payee (allow and deny side by side): the page's tests read it back against
 * GET /api/agents/:id/policy.
 */
function rulesTable(tableId: string, rules: PayeeRules): HTMLTableElement {
  const kinds = RULES.filter((r) => r.verb === 'allow')
  const cell = (name: RuleName, label: string) => {
    const list = rules[name]
    return h('td', {
      'data-label': label,
      'data-rule': name,
      class: list?.length ? 'mono' : 'muted',
      text: shown(list),
    })
  }
  return table(
    { id: tableId },
    ['Payee', 'Allow', 'Deny'],
    kinds.map((r) =>
      h(
        'tr',
        null,
        h('td', { 'data-label': 'Payee', text: r.what }),
        cell(r.name, 'Allow'),
        cell(RULES.find((x) => x.what === r.what && x.verb === 'deny')!.name, 'Deny'),
      ),
    ),
  )
}
