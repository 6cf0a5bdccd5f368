/** Plain CSS, no framework: readable from a phone-width window up. */
export const dashboardCss = String.raw`
:root {
  --fg: #1b1f24; --muted: #5b6470; --line: #d8dde3; --bg: #f6f7f9; --accent: #1f5fd1;
  --bad: #b42318; --ok: #067647; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
.top {
  display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between;
  padding: .75rem 1rem; background: #fff; border-bottom: 1px solid var(--line);
}
.brand { font-weight: 700; color: var(--fg); text-decoration: none; }
.who { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; font-size: .9rem; color: var(--muted); }
.nav {
  display: flex; flex-wrap: wrap; gap: .25rem; padding: .5rem 1rem; background: #fff;
  border-bottom: 1px solid var(--line);
}
.nav a { padding: .35rem .7rem; border-radius: 6px; color: var(--fg); text-decoration: none; }
.nav a[aria-current="page"] { background: var(--accent); color: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; outline: none; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 1rem; margin: 0 0 1rem; }
h1 { font-size: 1.35rem; margin: 0 0 .5rem; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; }
p { margin: .4rem 0; } .muted { color: var(--muted); font-size: .9rem; }
form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; }
label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); gap: .2rem; flex: 1 1 12rem; }
input, select {
  font: inherit; padding: .45rem .55rem; border: 1px solid var(--line); border-radius: 6px;
  min-width: 0;
}
button {
  font: inherit; padding: .45rem .8rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer;
}
button.secondary { background: #fff; color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
main:focus-visible { outline: none; }
section h2 + dl, dl + h2 { margin-top: .5rem; }
.error { color: var(--bad); margin: .5rem 0 0; } .error:empty { display: none; }
.secret { background: #fffbe6; border: 1px solid #f0d060; border-radius: 8px; padding: .75rem; margin: .75rem 0 0; }
.secret code { display: block; word-break: break-all; font-size: .95rem; margin: .3rem 0; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: .45rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.actions { white-space: nowrap; } td.actions button { margin: 0 .25rem .25rem 0; padding: .3rem .6rem; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
.state-active { color: var(--ok); font-weight: 600; } .state-deactivated, .state-revoked { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .3rem .8rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.chart { margin: .5rem 0 0; } .chart svg { display: block; width: 100%; height: auto; max-height: 16rem; }
.chart .bar { fill: var(--accent); } .chart .bar.over { fill: var(--bad); } .chart .hit { fill: transparent; }
.chart .day:hover .bar { fill: #143f8c; } .chart .axis { stroke: var(--line); stroke-width: 1; }
.chart line.limit { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 6 4; }
.chart .limit-label { fill: var(--bad); font-size: 11px; }
.chart .tick { fill: var(--muted); font-size: 11px; } .chart figcaption { margin-top: .3rem; }
.pager { display: flex; gap: .5rem; align-items: center; margin: .6rem 0 0; } .pager[hidden] { display: none; }
#payments-filter { margin: 0 0 .6rem; }
@media (max-width: 640px) {
  thead { display: none; } table, tbody, tr, td { display: block; width: 100%; }
  tr { border-bottom: 1px solid var(--line); padding: .4rem 0; } td { border: 0; padding: .15rem 0; }
  td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  dl { grid-template-columns: 1fr; } dt { margin-top: .4rem; }
  /* The chart scales down with the window; its labels are in its own units, so they grow to stay readable. */
  .chart .tick, .chart .limit-label { font-size: 20px; }
}
`
