import type { Spending } from '../../../src/sdk/dashboard/spending.js'
import { h, s } from './dom.js'

// The drawing's own units (the viewBox); CSS scales it to the section's width.
const W = 600
const H = 200
const PAD = { left: 48, right: 8, top: 14, bottom: 22 }

/** USD decimal strings to whole micros and back, so totals are exact (the bars' heights alone use floats). */
const micros = (usd: string): bigint => {
  const [i, f = ''] = usd.split('.')
  return BigInt(i! + f.padEnd(6, '0').slice(0, 6))
}
const usdOf = (m: bigint): string => {
  const t = m.toString().padStart(7, '0')
  const frac = t.slice(-6).replace(/0+$/, '')
  return frac ? `${t.slice(0, -6)}.${frac}` : t.slice(0, -6)
}
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/**
 * The agent page's chart: a bar per UTC day (src/sdk/dashboard/spending.ts), the daily limit as a
 * line, drawn as SVG from the data with DOM calls (no library, no inline style: the CSP allows
 * neither inline scripts nor styles). Every bar carries its exact numbers (data-day, data-usd,
 * data-count, and a <title> a pointer or screen reader shows), and the line its limit
 * (data-limit-usd), so what is drawn can be read back and checked against the API.
 */
export function spendChart(data: Spending): HTMLElement {
  const limit = data.dailyLimitUsd
  const peak = Math.max(...data.days.map((d) => Number(d.usd)), limit === null ? 0 : Number(limit))
  // Nothing spent and no limit: a $1 scale, rather than one of zero height.
  const top = (peak > 0 ? peak : 1) * 1.1
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const y = (usd: number) => PAD.top + plotH - (usd / top) * plotH
  const band = plotW / data.days.length
  const bars = data.days.map((d, i) => {
    const x = PAD.left + i * band
    const over = limit !== null && micros(d.usd) > micros(limit)
    const label = `${d.day}: ${d.usd} USD, ${plural(d.count, 'payment')}`
    return s(
      'g',
      { class: 'day' },
      s('title', { text: label }),
      // The whole column answers the pointer, so a day with no spend still shows its title.
      s('rect', { class: 'hit', x: x.toFixed(2), y: PAD.top, width: band.toFixed(2), height: plotH }),
      s('rect', {
        class: over ? 'bar over' : 'bar',
        x: (x + band * 0.15).toFixed(2),
        y: y(Number(d.usd)).toFixed(2),
        width: (band * 0.7).toFixed(2),
        height: (PAD.top + plotH - y(Number(d.usd))).toFixed(2),
        'data-day': d.day,
        'data-usd': d.usd,
        'data-count': d.count,
      }),
    )
  })
  const first = data.days[0]!.day
  const last = data.days[data.days.length - 1]!.day
  const axis = [
    s('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: PAD.top + plotH, y2: PAD.top + plotH }),
    s('text', {
      class: 'tick',
      x: PAD.left - 6,
      y: PAD.top + plotH,
      'text-anchor': 'end',
      'dominant-baseline': 'middle',
      text: '0',
    }),
    s('text', {
      class: 'tick',
      x: PAD.left - 6,
      y: PAD.top,
      'text-anchor': 'end',
      'dominant-baseline': 'middle',
      text: `$${round(top)}`,
    }),
    s('text', { class: 'tick', x: PAD.left, y: H - 4, text: first.slice(5) }),
    s('text', {
      class: 'tick',
      x: W - PAD.right,
      y: H - 4,
      'text-anchor': 'end',
      text: `${last.slice(5)} (today, UTC)`,
    }),
  ]
  const line =
    limit === null
      ? null
      : s(
          'g',
          { class: 'limit' },
          s('title', { text: `Daily limit: ${limit} USD in any 24 hours` }),
          s('line', {
            class: 'limit',
            x1: PAD.left,
            x2: W - PAD.right,
            y1: y(Number(limit)).toFixed(2),
            y2: y(Number(limit)).toFixed(2),
            'data-limit-usd': limit,
          }),
          s('text', {
            class: 'limit-label',
            x: W - PAD.right,
            y: (y(Number(limit)) - 4).toFixed(2),
            'text-anchor': 'end',
            text: `limit $${limit}`,
          }),
        )
  const total = usdOf(data.days.reduce((a, d) => a + micros(d.usd), 0n))
  const count = data.days.reduce((a, d) => a + d.count, 0)
  const summary =
    `Spent ${total} USD in ${plural(count, 'payment')} over the last ${data.days.length} days (UTC ` +
    `days, ${first} to ${last}); ${limit === null ? 'no daily limit' : `daily limit ${limit} USD`}.`
  const svg = s(
    'svg',
    { id: 'spend-chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, 'data-total-usd': total },
    axis,
    bars,
    line,
  )
  return h('figure', { class: 'chart' }, svg, h('figcaption', { class: 'muted', text: summary }))
}

/** An axis label: a few significant digits are enough to read the scale. */
const round = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2).replace(/\.?0+$/, '') : n.toPrecision(2))
