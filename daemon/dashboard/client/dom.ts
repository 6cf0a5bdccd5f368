/**
 * Building the page with DOM calls only, never from HTML strings, so a key's name or a seller's host
 * cannot inject markup; and no inline script or style attribute, which the page's CSP refuses.
 */
export type Child = Node | string | null | undefined | false | Child[]
export type Props = Record<string, string | number | boolean | null | undefined | ((ev: Event) => void)>

function attach(el: Element, props: Props | null | undefined, children: Child[]): void {
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (k === 'text') el.textContent = String(v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  const add = (c: Child): void => {
    if (c === null || c === undefined || c === false) return
    if (Array.isArray(c)) c.forEach(add)
    else el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c)
  }
  children.forEach(add)
}

/**
 * An HTML element: `text` sets its text, `on<event>` a listener, anything else an attribute (true: present, false/null:
 * absent).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  attach(el, props, children)
  return el
}

const SVG_NS = 'http://www.w3.org/2000/svg'
/** An SVG element, built as h() builds HTML ones. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag)
  attach(el, props, children)
  return el
}

export const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : 'never')
export const errorBox = (): HTMLParagraphElement => h('p', { class: 'error', role: 'alert' })
export const failed = (e: unknown): HTMLParagraphElement =>
  h('p', { class: 'error', role: 'alert', text: e instanceof Error ? e.message : String(e) })

/** A table with a header row; narrow windows show each cell's data-label instead (app.css). */
export function table(props: Props | null, headings: string[], rows: Node[]): HTMLTableElement {
  return h(
    'table',
    props,
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        headings.map((t) => h('th', { scope: 'col', text: t })),
      ),
    ),
    h('tbody', null, rows),
  )
}

/** Runs an action from a button or form, showing its failure in the section's error line. */
export function act(button: HTMLButtonElement | null, box: HTMLElement, fn: () => unknown): (ev?: Event) => void {
  return (ev) => {
    ev?.preventDefault()
    box.textContent = ''
    if (button) button.disabled = true
    // A click handler: nothing awaits it, and the catch shows the action's failure in the box.
    void Promise.resolve()
      .then(fn)
      .catch((e: unknown) => {
        box.textContent = e instanceof Error ? e.message : String(e)
      })
      .then(() => {
        if (button) button.disabled = false
      })
  }
}

function copyButton(text: string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: 'secondary', text: 'Copy' })
  b.addEventListener('click', () => {
    const done = () => {
      b.textContent = 'Copied'
    }
    if (navigator.clipboard && window.isSecureContext)
      navigator.clipboard.writeText(text).then(done, () => {
        b.textContent = 'Select and copy'
      })
    else {
      // Over plain http (a LAN address) the clipboard API is absent: select the secret for Ctrl+C.
      const r = document.createRange()
      r.selectNodeContents(b.previousSibling!)
      const sel = getSelection()!
      sel.removeAllRanges()
      sel.addRange(r)
      b.textContent = 'Selected: press Ctrl+C'
    }
  })
  return b
}

/** A secret shown once, right after it was created. */
export function secretBox(title: string, secret: string, extra?: Node): HTMLDivElement {
  return h(
    'div',
    { class: 'secret', role: 'status' },
    h('strong', { text: title }),
    h('code', { 'data-secret': '', text: secret }),
    copyButton(secret),
    h('p', {
      class: 'muted',
      text:
        'Shown once: the server keeps only its hash. Store it now; after you ' +
        'leave this page only its prefix and last four characters are shown.',
    }),
    extra ?? null,
  )
}
