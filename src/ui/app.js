// app.js — the console's entry point: finds out whether the server wants an API
// key (and asks for one), mounts the four views, routes between them on the
// URL's #fragment, and keeps the health pill in the header current.

import { call, bus, server, apiKey, setApiKey } from './api.js';
import * as browse from './browse.js';
import * as query from './query.js';
import * as mutate from './mutate.js';
import * as watch from './watch.js';

const views = { browse, query, mutate, watch };
const titles = { browse: 'Browse', query: 'Query', mutate: 'Mutate', watch: 'Watch' };
const $ = (id) => document.getElementById(id);

function showBanner(text) {
  const b = $('banner');
  b.textContent = text;
  b.hidden = false;
}

window.addEventListener('error', (e) => showBanner(`Console error: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showBanner(`Console error: ${e.reason && e.reason.message ? e.reason.message : e.reason}`));

function route() {
  const hash = location.hash.replace(/^#/, '');
  const [first, ...rest] = hash.split('/').map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  const name = views[first] ? first : 'browse';
  for (const n of Object.keys(views)) {
    $(`view-${n}`).hidden = n !== name;
    const tab = $(`tab-${n}`);
    if (n === name) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  if (name !== 'watch') watch.hide();
  document.title = `${titles[name]} · actionbase-c console`;
  views[name].show(rest);
}

// ---- the API key ----

function keyButtonText() {
  const b = $('key-button');
  b.textContent = apiKey() ? 'API key: set' : server.authOn ? 'API key: needed' : 'API key';
  b.classList.toggle('attention', server.authOn && !apiKey());
}

function openKeyDialog(reason) {
  const d = $('key-dialog');
  $('key-reason').textContent = reason || '';
  $('key-error').hidden = true;
  $('key-input').value = '';
  $('key-forget').disabled = !apiKey();
  if (!d.open) d.showModal();
  $('key-input').focus();
}

function setupKeyDialog() {
  const d = $('key-dialog');
  $('key-button').addEventListener('click', () => openKeyDialog(server.authOn ? 'This server requires an API key (--auth).' : 'This server does not ask for a key; one set here is sent anyway.'));
  $('key-cancel').addEventListener('click', () => d.close());
  $('key-forget').addEventListener('click', () => {
    setApiKey('');
    keyButtonText();
    d.close();
    if (server.authOn) openKeyDialog('The key was forgotten. This server requires an API key (--auth).');
  });
  $('key-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const key = $('key-input').value.trim();
    const err = $('key-error');
    if (!key) {
      err.textContent = 'Enter a key.';
      err.hidden = false;
      return;
    }
    // A key the server does not know answers 401; a known key without the
    // grant to list databases (403) is still a key.
    const r = await call('GET', '/graph/v3/databases', { headers: { Authorization: `Bearer ${key}` }, noKey: true, quiet: true });
    if (r.status === 401) {
      err.textContent = r.message;
      err.hidden = false;
      $('key-input').focus();
      return;
    }
    d.close();
    setApiKey(key);
    keyButtonText();
  });
  bus.addEventListener('unauthorized', (e) => {
    if (!d.open) openKeyDialog(e.detail.message);
  });
}

// ---- health ----

async function health() {
  const r = await call('GET', '/health', { noKey: true, quiet: true });
  const pill = $('health');
  const up = r.ok && r.json && r.json.status === 'UP';
  const ro = !!(r.json && r.json.readOnly);
  pill.textContent = up ? (ro ? 'UP · read-only' : 'UP') : r.json && r.json.status === 'DOWN' ? `DOWN: ${r.json.reason || ''}` : 'unreachable';
  pill.className = `pill ${up ? 'ok' : 'bad'}`;
  if (ro !== server.readOnly) {
    server.readOnly = ro;
    return true;
  }
  return false;
}

async function init() {
  setupKeyDialog();
  const [info, probe] = await Promise.all([call('GET', '/graph/v3', { noKey: true, quiet: true }), call('GET', '/graph/v3/databases', { noKey: true, quiet: true })]);
  if (info.ok && info.json) {
    server.version = info.json.version || '';
    $('server-version').textContent = `${info.json.server || ''} ${server.version}`.trim();
  }
  server.authOn = probe.status === 401;
  await health();
  keyButtonText();
  for (const [name, view] of Object.entries(views)) view.mount($(`view-${name}`));
  window.addEventListener('hashchange', route);
  route();
  if (server.authOn && !apiKey()) openKeyDialog('This server requires an API key (--auth). Enter one to continue.');
  watch.start();
  setInterval(async () => {
    if (await health()) setApiKey(apiKey()); // read-only switched: re-check what may be done
  }, 5000);
  document.body.dataset.ready = 'true';
}

init();
