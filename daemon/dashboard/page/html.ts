/** The dashboard's one HTML page: the script draws everything; this is what shows before it runs. */
export const dashboardHtml = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>parx dashboard</title>
<link rel="stylesheet" href="/dashboard/app.css">
<script src="/dashboard/app.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="#/keys">parx dashboard</a>
  <div id="who" class="who"></div>
</header>
<nav id="nav" class="nav" aria-label="Sections" hidden>
  <a href="#/keys">Partner API keys</a>
  <a href="#/cli">Command line access</a>
  <a href="#/agents">Agents</a>
  <a href="#/approvals">Approvals</a>
  <a href="#/alerts">Alerts</a>
</nav>
<main id="app" tabindex="-1"><p>Loading…</p><noscript>The dashboard needs JavaScript.</noscript></main>
</body>
</html>
`
