/**
 * The dashboard's script: plain browser JavaScript, no framework and no build, served as is by the
 * daemon (no CDN: it loads with no internet). It speaks the JSON routes of src/sdk/dashboard/ and
 * an injected EIP-1193 wallet (window.ethereum). Elements are built with h(), never from HTML
 * strings, so a key name cannot inject markup.
 */
export const dashboardJs = String.raw`'use strict';
(function () {
  var API = '/dashboard/api';
  var state = { session: null, secret: null, userSecret: null, agentSecret: null };
  var app = document.getElementById('app');
  var who = document.getElementById('who');
  var nav = document.getElementById('nav');

  function h(tag, props) {
    var el = document.createElement(tag);
    var p = props || {};
    Object.keys(p).forEach(function (k) {
      var v = p[k];
      if (v === undefined || v === null || v === false) return;
      if (k.slice(0, 2) === 'on') el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : v);
    });
    var add = function (c) {
      if (c === null || c === undefined || c === false) return;
      if (Array.isArray(c)) c.forEach(add);
      else el.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    };
    for (var i = 2; i < arguments.length; i++) add(arguments[i]);
    return el;
  }
  function when(iso) { return iso ? new Date(iso).toLocaleString() : 'never'; }
  function errorBox() { return h('p', { class: 'error', role: 'alert' }); }

  function api(method, path, body) {
    var headers = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && state.session) headers['x-csrf-token'] = state.session.csrfToken;
    return fetch(API + path, { method: method, headers: headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (res) {
        return res.text().then(function (t) {
          var data = null;
          try { data = t ? JSON.parse(t) : null; } catch (e) { data = { error: t }; }
          if (res.ok) return data;
          var err = new Error((data && data.error) || ('HTTP ' + res.status));
          err.code = data && data.code;
          if (res.status === 401 && err.code === 'UNAUTHORIZED' && path !== '/siwe/login') { state.session = null; render(); }
          throw err;
        });
      });
  }
  /** Runs an action from a button, showing its failure in the section's error line. */
  function act(button, box, fn) {
    return function (ev) {
      if (ev) ev.preventDefault();
      box.textContent = '';
      if (button) button.disabled = true;
      Promise.resolve().then(fn).catch(function (e) { box.textContent = e.message; })
        .then(function () { if (button) button.disabled = false; });
    };
  }
  function copyButton(text) {
    var b = h('button', { type: 'button', class: 'secondary', text: 'Copy' });
    b.addEventListener('click', function () {
      var done = function () { b.textContent = 'Copied'; };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () { b.textContent = 'Select and copy'; });
      else { var r = document.createRange(); r.selectNodeContents(b.previousSibling); var s = getSelection(); s.removeAllRanges(); s.addRange(r); b.textContent = 'Selected: press Ctrl+C'; }
    });
    return b;
  }
  function secretBox(title, secret, extra) {
    return h('div', { class: 'secret', role: 'status' },
      h('strong', { text: title }),
      h('code', { 'data-secret': '', text: secret }), copyButton(secret),
      h('p', { class: 'muted', text: 'Shown once: the server keeps only its hash. Store it now; after you leave this page only its prefix and last four characters are shown.' }),
      extra || null);
  }
  function page(title, intro) {
    app.replaceChildren(h('h1', { text: title }));
    if (intro) app.append(h('p', { class: 'muted', text: intro }));
    app.focus();
  }

  // ---- sign-in -----------------------------------------------------------------------------------
  function utf8Hex(s) {
    var bytes = new TextEncoder().encode(s); var out = '0x';
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? '0' : '') + bytes[i].toString(16);
    return out;
  }
  function signIn(box) {
    var eth = window.ethereum;
    if (!eth) throw new Error('No wallet found in this browser. Install or unlock an Ethereum wallet extension, then reload.');
    var address;
    return eth.request({ method: 'eth_requestAccounts' }).then(function (accounts) {
      if (!accounts || !accounts.length) throw new Error('The wallet shared no account.');
      address = accounts[0];
      return eth.request({ method: 'eth_chainId' });
    }).then(function (chainHex) {
      return api('POST', '/siwe/message', { address: address, chainId: parseInt(chainHex, 16) });
    }).then(function (m) {
      box.textContent = 'Check your wallet: sign the sign-in message (it costs nothing).';
      return eth.request({ method: 'personal_sign', params: [utf8Hex(m.message), address] }).then(function (signature) {
        return api('POST', '/siwe/login', { message: m.message, signature: signature });
      });
    }).then(function (s) { box.textContent = ''; state.session = s; if (!location.hash || location.hash === '#/') location.hash = '#/keys'; render(); });
  }
  function signInPage() {
    nav.hidden = true; who.replaceChildren();
    var box = errorBox();
    var btn = h('button', { type: 'button', id: 'connect', text: 'Connect wallet and sign in' });
    btn.addEventListener('click', act(btn, box, function () { return signIn(box); }));
    page('Sign in', 'Sign in with your Ethereum wallet (Sign-In with Ethereum). There is no password and no e-mail: your wallet address is your account, and it owns your partner API keys, command line keys and agents.');
    app.append(h('section', null, btn, box, window.ethereum ? null : h('p', { class: 'muted', text: 'No wallet detected in this browser yet.' })));
  }
  function header() {
    var box = errorBox();
    var out = h('button', { type: 'button', class: 'secondary', id: 'logout', text: 'Sign out' });
    out.addEventListener('click', act(out, box, function () {
      return api('POST', '/logout').then(function () { state.session = null; state.secret = state.userSecret = state.agentSecret = null; render(); });
    }));
    who.replaceChildren(h('span', { class: 'mono', id: 'wallet', title: state.session.wallet, text: state.session.wallet.slice(0, 6) + '…' + state.session.wallet.slice(-4) }), out, box);
    nav.hidden = false;
    Array.prototype.forEach.call(nav.querySelectorAll('a'), function (a) {
      var here = location.hash.indexOf(a.getAttribute('href')) === 0;
      if (here) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
  }

  // ---- partner keys --------------------------------------------------------------------------------
  function keysPage() {
    page('Partner API keys', 'Send a key in the x-api-key header to the swap API. A key has no scopes and no spend limit: keep it on your backend.');
    var box = errorBox();
    var name = h('input', { id: 'key-name', name: 'name', required: true, maxlength: '64', autocomplete: 'off' });
    var desc = h('input', { id: 'key-description', name: 'description', maxlength: '280', autocomplete: 'off' });
    var create = h('button', { type: 'submit', id: 'key-create', text: 'Create key' });
    var form = h('form', { 'aria-label': 'Create a partner key' }, h('label', null, 'Name', name), h('label', null, 'Description (optional)', desc), create);
    var fresh = h('div');
    if (state.secret) fresh.append(secretBox('Your new key', state.secret));
    form.addEventListener('submit', act(create, box, function () {
      return api('POST', '/partner-keys', { name: name.value, description: desc.value || undefined }).then(function (r) { state.secret = r.secret; keysPage(); });
    }));
    var list = h('div', null, h('p', { class: 'muted', text: 'Loading keys…' }));
    app.append(h('section', null, h('h2', { text: 'New key' }), form, box, fresh), h('section', null, h('h2', { text: 'Your keys' }), list));
    api('GET', '/partner-keys').then(function (r) {
      if (!r.keys.length) { list.replaceChildren(h('p', { class: 'empty', text: 'No keys yet. Create your first key above.' })); return; }
      var rows = r.keys.map(function (k) {
        var rowBox = errorBox();
        var actions = h('td', { class: 'actions' });
        if (k.state === 'active') {
          var off = h('button', { type: 'button', class: 'secondary', text: 'Deactivate', 'aria-label': 'Deactivate ' + k.name });
          off.addEventListener('click', act(off, rowBox, function () { return api('POST', '/partner-keys/' + k.id + '/deactivate').then(keysPage); }));
          actions.append(off);
        }
        var del = h('button', { type: 'button', class: 'danger', text: 'Delete', 'aria-label': 'Delete ' + k.name });
        del.addEventListener('click', act(del, rowBox, function () {
          if (del.dataset.armed !== '1') { del.dataset.armed = '1'; del.textContent = 'Confirm delete'; del.setAttribute('aria-label', 'Confirm delete ' + k.name + ' (the key stops working for good)'); return; }
          return api('DELETE', '/partner-keys/' + k.id).then(function () { state.secret = null; keysPage(); });
        }));
        actions.append(del, rowBox);
        return h('tr', { 'data-key-id': k.id },
          h('td', { 'data-label': 'Name' }, h('strong', { text: k.name }), k.description ? h('div', { class: 'muted', text: k.description }) : null),
          h('td', { 'data-label': 'Key', class: 'mono', text: k.masked }),
          h('td', { 'data-label': 'State', class: 'state-' + k.state, text: k.state }),
          h('td', { 'data-label': 'Created', text: when(k.createdAt) }),
          h('td', { 'data-label': 'Last used', text: when(k.lastUsedAt) }),
          actions);
      });
      list.replaceChildren(h('table', null, h('thead', null, h('tr', null, ['Name', 'Key', 'State', 'Created', 'Last used', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))), h('tbody', null, rows)),
        h('p', { class: 'muted', text: r.propagation }));
    }).catch(function (e) { list.replaceChildren(h('p', { class: 'error', role: 'alert', text: e.message })); });
  }

  // ---- command line access ------------------------------------------------------------------------
  function cliPage() {
    page('Command line access', 'A user key lets the parx command line act as you: your agents and seller endpoints.');
    var box = errorBox();
    var create = h('button', { type: 'button', id: 'user-key-create', text: 'Create a command line key' });
    create.addEventListener('click', act(create, box, function () { return api('POST', '/user-keys').then(function (r) { state.userSecret = r.userKey; cliPage(); }); }));
    var fresh = h('div');
    if (state.userSecret) fresh.append(secretBox('Your new command line key', state.userSecret, h('p', null, 'Then run: ', h('code', { text: 'parx auth user login --user-key ' + state.userSecret }))));
    var list = h('div', null, h('p', { class: 'muted', text: 'Loading keys…' }));
    app.append(h('section', null, create, box, fresh), h('section', null, h('h2', { text: 'Your command line keys' }), list));
    api('GET', '/user-keys').then(function (r) {
      if (!r.keys.length) { list.replaceChildren(h('p', { class: 'empty', text: 'No command line keys yet.' })); return; }
      list.replaceChildren(h('table', null, h('thead', null, h('tr', null, ['Key', 'Created', 'State', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', null, r.keys.map(function (k) {
          var rowBox = errorBox(); var cell = h('td', { class: 'actions' });
          if (!k.revokedAt) {
            var rv = h('button', { type: 'button', class: 'danger', text: 'Revoke', 'aria-label': 'Revoke ' + k.masked });
            rv.addEventListener('click', act(rv, rowBox, function () { return api('DELETE', '/user-keys/' + k.id).then(function () { state.userSecret = null; cliPage(); }); }));
            cell.append(rv);
          }
          cell.append(rowBox);
          return h('tr', { 'data-user-key-id': k.id }, h('td', { 'data-label': 'Key', class: 'mono', text: k.masked }), h('td', { 'data-label': 'Created', text: when(k.createdAt) }),
            h('td', { 'data-label': 'State', class: k.revokedAt ? 'state-revoked' : 'state-active', text: k.revokedAt ? 'revoked ' + when(k.revokedAt) : 'active' }), cell);
        }))));
    }).catch(function (e) { list.replaceChildren(h('p', { class: 'error', role: 'alert', text: e.message })); });
  }

  // ---- agents -------------------------------------------------------------------------------------
  function agentsPage() {
    page('Agents', 'An agent is a wallet the platform holds for you on one network; software uses it with an agent key, within the limits you set.');
    var box = errorBox();
    var list = h('div', null, h('p', { class: 'muted', text: 'Loading agents…' }));
    var formSlot = h('div');
    app.append(h('section', null, h('h2', { text: 'New agent' }), formSlot, box), h('section', null, h('h2', { text: 'Your agents' }), list));
    api('GET', '/agents').then(function (r) {
      var name = h('input', { id: 'agent-name', required: true, maxlength: '64', autocomplete: 'off' });
      var net = h('select', { id: 'agent-network' }, r.networks.map(function (n) { return h('option', { value: n, text: n }); }));
      var create = h('button', { type: 'submit', id: 'agent-create', text: 'Create agent', disabled: !r.canCreate });
      var form = h('form', { 'aria-label': 'Create an agent' }, h('label', null, 'Name', name), h('label', null, 'Network', net), create);
      form.addEventListener('submit', act(create, box, function () {
        return api('POST', '/agents', { name: name.value, network: net.value }).then(function (a) { location.hash = '#/agents/' + a.id; });
      }));
      formSlot.replaceChildren(h('div', null, form, r.canCreate ? null : h('p', { class: 'muted', text: 'This server has no platform wallet key configured, so agents cannot be created here.' })));
      if (!r.agents.length) { list.replaceChildren(h('p', { class: 'empty', text: 'No agents yet. Create one above.' })); return; }
      list.replaceChildren(h('table', null, h('thead', null, h('tr', null, ['Name', 'Network', 'Wallet', 'Created'].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', null, r.agents.map(function (a) {
          return h('tr', null, h('td', { 'data-label': 'Name' }, h('a', { href: '#/agents/' + a.id, text: a.name })), h('td', { 'data-label': 'Network', text: a.network }),
            h('td', { 'data-label': 'Wallet', class: 'mono', text: a.wallet }), h('td', { 'data-label': 'Created', text: when(a.createdAt) }));
        }))));
    }).catch(function (e) { list.replaceChildren(h('p', { class: 'error', role: 'alert', text: e.message })); });
  }

  function agentPage(id) {
    page('Agent', null);
    var body = h('div', null, h('p', { class: 'muted', text: 'Loading agent…' }));
    app.append(h('p', null, h('a', { href: '#/agents', text: '← All agents' })), body);
    api('GET', '/agents/' + id).then(function (d) {
      var a = d.agent;
      app.querySelector('h1').textContent = 'Agent ' + a.name;
      var bal = d.balance
        ? h('dl', { id: 'balances' }, d.balance.tokens.map(function (t) { return [h('dt', { text: t.symbol }), h('dd', { text: t.amount })]; }), h('dt', { text: d.balance.native.symbol + ' (gas)' }), h('dd', { text: d.balance.native.amount }))
        : h('p', { class: 'error', role: 'alert', text: 'Balances unavailable: ' + d.balanceError });
      // limits
      var lbox = errorBox();
      function field(idn, label, value, hint) { return h('label', null, label, h('input', { id: idn, value: value || '', placeholder: hint, autocomplete: 'off' })); }
      var save = h('button', { type: 'submit', id: 'limits-save', text: 'Save limits' });
      var lform = h('form', { 'aria-label': 'Spending limits' },
        field('limit-per-payment', 'Per payment (USD)', d.limits.perPaymentUsd, 'no limit'),
        field('limit-daily', 'Per rolling day (USD)', d.limits.dailyUsd, 'no limit'),
        field('limit-hosts', 'Hosts pay may pay (comma separated)', (d.limits.allowedHosts || []).join(', '), 'any host'), save);
      lform.addEventListener('submit', act(save, lbox, function () {
        var v = function (x) { var t = lform.querySelector('#' + x).value.trim(); return t === '' ? null : t; };
        var hosts = v('limit-hosts');
        return api('POST', '/agents/' + id + '/limits', { perPaymentUsd: v('limit-per-payment'), dailyUsd: v('limit-daily'), allowedHosts: hosts === null ? null : hosts.split(',').map(function (s) { return s.trim(); }).filter(Boolean) })
          .then(function () { agentPage(id); });
      }));
      // keys
      var kbox = errorBox();
      var klabel = h('input', { id: 'agent-key-label', maxlength: '64', autocomplete: 'off' });
      var kcreate = h('button', { type: 'submit', id: 'agent-key-create', text: 'Create agent key' });
      var kform = h('form', { 'aria-label': 'Create an agent key' }, h('label', null, 'Label (optional)', klabel), kcreate);
      kform.addEventListener('submit', act(kcreate, kbox, function () {
        return api('POST', '/agents/' + id + '/keys', { label: klabel.value || undefined }).then(function (r) { state.agentSecret = { agent: id, key: r.agentKey }; agentPage(id); });
      }));
      var ksecret = state.agentSecret && state.agentSecret.agent === id
        ? secretBox('Your new agent key', state.agentSecret.key, h('p', null, 'Then run: ', h('code', { text: 'parx agent login --agent-key ' + state.agentSecret.key }))) : null;
      var keys = d.keys.length ? h('table', null, h('thead', null, h('tr', null, ['Key', 'Label', 'Created', 'Last used', 'State', ''].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', null, d.keys.map(function (k) {
          var rb = errorBox(); var cell = h('td', { class: 'actions' });
          if (!k.revokedAt) {
            var rv = h('button', { type: 'button', class: 'danger', text: 'Revoke', 'aria-label': 'Revoke ' + k.hint });
            rv.addEventListener('click', act(rv, rb, function () { return api('DELETE', '/agents/' + id + '/keys/' + k.id).then(function () { state.agentSecret = null; agentPage(id); }); }));
            cell.append(rv);
          }
          cell.append(rb);
          return h('tr', { 'data-agent-key-id': k.id }, h('td', { 'data-label': 'Key', class: 'mono', text: k.hint }), h('td', { 'data-label': 'Label', text: k.label || '' }),
            h('td', { 'data-label': 'Created', text: when(k.createdAt) }), h('td', { 'data-label': 'Last used', text: when(k.lastUsedAt) }),
            h('td', { 'data-label': 'State', class: k.revokedAt ? 'state-revoked' : 'state-active', text: k.revokedAt ? 'revoked' : 'active' }), cell);
        }))) : h('p', { class: 'empty', text: 'No agent keys yet: create one to let software use this agent.' });
      var pays = d.payments.length ? h('table', { id: 'payments' }, h('thead', null, h('tr', null, ['When', 'Kind', 'Amount', 'To', 'State', 'Transaction'].map(function (t) { return h('th', { scope: 'col', text: t }); }))),
        h('tbody', null, d.payments.map(function (p) {
          return h('tr', null, h('td', { 'data-label': 'When', text: when(p.createdAt) }), h('td', { 'data-label': 'Kind', text: p.kind }), h('td', { 'data-label': 'Amount', text: p.amount + ' ' + p.token }),
            h('td', { 'data-label': 'To', class: 'mono', text: p.recipient || '' }), h('td', { 'data-label': 'State', text: p.state }), h('td', { 'data-label': 'Transaction', class: 'mono', text: p.transaction || '' }));
        }))) : h('p', { class: 'empty', text: 'No payments yet.' });
      body.replaceChildren(
        h('section', null, h('h2', { text: 'Wallet' }), h('dl', null, h('dt', { text: 'Address' }), h('dd', { class: 'mono', id: 'agent-wallet', text: a.wallet }), h('dt', { text: 'Network' }), h('dd', { text: a.network + ' (chain ' + a.chainId + ')' }),
          h('dt', { text: 'Sends by' }), h('dd', { text: a.sendMethod === 'userOperation' ? 'sponsored user operation (no gas needed)' : 'plain transfer' })), h('h2', { text: 'Balances' }), bal),
        h('section', null, h('h2', { text: 'Spending limits' }), h('p', { class: 'muted', text: 'Spent in the last 24 hours: ' + d.limits.spentTodayUsd + ' USD' + (d.limits.remainingTodayUsd === null ? '' : '; still allowed: ' + d.limits.remainingTodayUsd + ' USD') + '. Leave a field empty for no limit.' }), lform, lbox),
        h('section', null, h('h2', { text: 'Agent keys' }), kform, kbox, ksecret, keys),
        h('section', null, h('h2', { text: 'Recent payments' }), pays));
    }).catch(function (e) { body.replaceChildren(h('p', { class: 'error', role: 'alert', text: e.message })); });
  }

  // ---- routing ------------------------------------------------------------------------------------
  function render() {
    if (!state.session) return signInPage();
    header();
    var hash = location.hash || '#/keys';
    var m = /^#\/agents\/([0-9a-f-]{36})$/.exec(hash);
    if (m) return agentPage(m[1]);
    if (hash === '#/cli') return cliPage();
    if (hash === '#/agents') return agentsPage();
    return keysPage();
  }
  window.addEventListener('hashchange', render);
  api('GET', '/session').then(function (s) { state.session = s; }, function () { state.session = null; }).then(render);
})();
`
