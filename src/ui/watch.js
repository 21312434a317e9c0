// watch.js — the Watch view: polls /metrics every 2 s, keeps the last 15
// minutes in the page and charts requests/s and p50/p99 per route, errors,
// mutations by status, store operations and call latency, WAL/CDC records,
// applier lag, queue depth and any series picked by name.

import { h, field, options, nextId } from './dom.js';
import { call, bus, server } from './api.js';
import { parseMetrics, sumBy, rates, bucketsBy, quantileBetween } from './prom.js';
import { drawChart, formatValue } from './chart.js';

export const POLL_MS = 2000;
export const WINDOW_MS = 15 * 60 * 1000;

const history = []; // [{t, v: Map(key -> number|null), raw: Map(series -> value)}]
let prev = null; // {t, metrics}
let timer = null;
let polling = false; // a GET /metrics in flight
let paused = false;
let stopped = false; // 401/403: wait for another key
let visible = false;
let statusEl;
let tiles;
let charts = {};
let routeSelect;
let anySelect;
let lastError = '';

const counterLike = (name) => /(_total|_count|_sum|_bucket)$/.test(name);
const seriesKey = (name, labels) => {
  const l = Object.entries(labels)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  return l ? `${name}{${l}}` : name;
};

// Everything the charts need from two scrapes dt seconds apart.
function derive(p, cur, dt) {
  const v = new Map();
  const set = (k, x) => v.set(k, x === undefined ? null : x);
  const m = cur;
  const pm = p;

  const reqs = (mm) => sumBy(mm, 'actionbase_http_requests_total', 'route');
  const byRoute = rates(reqs(pm), reqs(m), dt);
  let total = 0;
  for (const [route, r] of byRoute) {
    set(`req:${route}`, r);
    total += r;
  }
  set('req:total', total);
  const cls = (mm) => sumBy(mm, 'actionbase_http_requests_total', 'status');
  const byStatus = rates(cls(pm), cls(m), dt);
  let e4 = 0;
  let e5 = 0;
  for (const [status, r] of byStatus) {
    if (status.startsWith('4')) e4 += r;
    if (status.startsWith('5')) e5 += r;
  }
  set('err:4xx', e4);
  set('err:5xx', e5);

  const bucketName = 'actionbase_http_request_duration_seconds_bucket';
  const before = bucketsBy(pm, bucketName, 'route');
  const after = bucketsBy(m, bucketName, 'route');
  for (const [route, b] of after) {
    const q50 = quantileBetween(before.get(route), b, 0.5);
    const q99 = quantileBetween(before.get(route), b, 0.99);
    set(`lat:${route}:p50`, q50 === null ? null : q50 * 1000);
    set(`lat:${route}:p99`, q99 === null ? null : q99 * 1000);
  }
  const allBefore = bucketsBy(pm, bucketName, null).get('');
  const allAfter = bucketsBy(m, bucketName, null).get('');
  const a50 = quantileBetween(allBefore, allAfter, 0.5);
  const a99 = quantileBetween(allBefore, allAfter, 0.99);
  set('lat:*:p50', a50 === null ? null : a50 * 1000);
  set('lat:*:p99', a99 === null ? null : a99 * 1000);

  const rateOf = (name, label, prefix, filter) => {
    const r = rates(sumBy(pm, name, label, filter), sumBy(m, name, label, filter), dt);
    for (const [k, x] of r) set(`${prefix}:${k}`, x);
  };
  rateOf('actionbase_mutations_total', 'status', 'mut');
  rateOf('actionbase_store_operations_total', 'verb', 'store');
  rateOf('actionbase_store_errors_total', 'verb', 'storeerr');
  rateOf('actionbase_applier_records_total', 'outcome', 'applier');
  for (const sink of ['wal', 'cdc']) rateOf('actionbase_sink_records_total', 'outcome', `sink:${sink}`, (l) => l.sink === sink);

  const calls = rates(sumBy(pm, 'actionbase_store_rpc_total', 'method'), sumBy(m, 'actionbase_store_rpc_total', 'method'), dt);
  const secs = rates(sumBy(pm, 'actionbase_store_rpc_seconds_total', 'method'), sumBy(m, 'actionbase_store_rpc_seconds_total', 'method'), dt);
  for (const [method, c] of calls) set(`rpc:${method}`, c > 0 ? ((secs.get(method) || 0) / c) * 1000 : null);

  // shown in ms; the server exports seconds
  for (const s of m.get('actionbase_applier_lag_seconds') || [])
    if (s.labels.quantile !== undefined) set(`lag:p${Number(s.labels.quantile) * 100}`, s.value * 1000);

  // Queue depth: any gauge-like series that names a queue, a backlog or work in flight.
  for (const [name, list] of m)
    if (/queue|in_flight|inflight|pending|backlog|depth/.test(name) && !counterLike(name))
      for (const s of list) set(`depth:${seriesKey(name, s.labels)}`, s.value);
  return v;
}

function flatten(m) {
  const raw = new Map();
  for (const [name, list] of m) for (const s of list) raw.set(seriesKey(name, s.labels), s.value);
  return raw;
}

async function poll() {
  timer = null;
  if (paused || stopped || polling) return;
  polling = true;
  const r = await call('GET', '/metrics', { quiet: true });
  polling = false;
  const now = Date.now();
  if (r.ok) {
    lastError = '';
    const metrics = parseMetrics(r.text);
    if (prev) {
      const dt = (now - prev.t) / 1000;
      history.push({ t: now, v: derive(prev.metrics, metrics, dt), raw: flatten(metrics) });
    } else {
      history.push({ t: now, v: new Map(), raw: flatten(metrics) });
    }
    prev = { t: now, metrics };
    while (history.length && history[0].t < now - WINDOW_MS) history.shift();
    updateTiles(metrics);
  } else {
    lastError = r.status === 401 || r.status === 403 ? `GET /metrics: ${r.status} ${r.message} Polling stopped until another key is given.` : `GET /metrics: ${r.message}`;
    if (r.status === 401 || r.status === 403) stopped = true;
  }
  if (visible) renderAll();
  schedule();
}

function schedule() {
  if (timer === null && !polling && !paused && !stopped) timer = setTimeout(poll, POLL_MS);
}

// Starts polling (the history fills whatever view is shown); one chain of
// polls at a time: a poll in flight schedules the next itself.
export function start() {
  stopped = false;
  if (timer === null && !polling) timer = setTimeout(poll, 0);
}

export function mount(el) {
  statusEl = h('p', { id: 'watch-status', class: 'muted', 'aria-live': 'polite' });
  const pause = h('button', { type: 'button', id: 'watch-pause', class: 'secondary', 'aria-pressed': 'false' }, 'Pause');
  pause.addEventListener('click', () => {
    paused = !paused;
    pause.textContent = paused ? 'Resume' : 'Pause';
    pause.setAttribute('aria-pressed', String(paused));
    if (!paused) schedule();
    renderAll();
  });
  tiles = h('dl', { class: 'tiles', id: 'watch-tiles' });
  routeSelect = h('select', { id: 'watch-route' }, options([['*', 'all routes']], '*'));
  routeSelect.addEventListener('change', () => renderAll());
  anySelect = h('select', { id: 'watch-any' }, options([['', '(pick a series)']], ''));
  anySelect.addEventListener('change', () => renderAll());
  const chart = (id, title, extra) => {
    const host = h('div', { class: 'chart', id: `chart-${id}`, dataset: { samples: '0' } });
    const hid = nextId('ch');
    charts[id] = host;
    return h('section', { class: 'chart-card', 'aria-labelledby': hid }, h('h3', { id: hid }, title), extra || null, host);
  };
  el.append(
    h('div', { class: 'section-head' }, h('h2', { id: 'h-watch' }, 'Watch'), pause),
    h('p', { class: 'hint' }, `GET /metrics every ${POLL_MS / 1000} s; the last ${WINDOW_MS / 60000} minutes are kept in this page (not in the server).`),
    statusEl,
    tiles,
    h(
      'div',
      { class: 'charts' },
      chart('requests', 'Requests/s by route'),
      chart('latency', 'Latency p50 / p99 (ms)', field('Route', routeSelect).wrap),
      chart('errors', 'Errors/s (4xx, 5xx)'),
      chart('mutations', 'Mutations/s by key status'),
      chart('store', 'Store operations/s by verb'),
      chart('rpc', 'Store call latency (ms, mean per Thrift method; HBase)'),
      chart('sinks', 'WAL / CDC records/s'),
      chart('applier', 'Applier lag (ms)'),
      chart('depth', 'Queue depth'),
      chart('any', 'Any series', field('Series', anySelect).wrap),
    ),
  );
  window.addEventListener('resize', () => {
    if (visible) requestAnimationFrame(renderAll);
  });
  bus.addEventListener('key-changed', () => {
    prev = null;
    start();
  });
}

export function show() {
  visible = true;
  renderAll();
}

export function hide() {
  visible = false;
}

function updateTiles(m) {
  const one = (name) => ((m.get(name) || [])[0] || {}).value;
  const started = one('actionbase_start_time_seconds');
  const up = started ? Math.max(0, Date.now() / 1000 - started) : null;
  const upText = up === null ? '–' : up > 86400 ? `${(up / 86400).toFixed(1)} d` : up > 3600 ? `${(up / 3600).toFixed(1)} h` : `${Math.round(up / 60)} min`;
  const last = history[history.length - 1];
  const total = last ? last.v.get('req:total') : null;
  const ro = one('actionbase_read_only');
  tiles.replaceChildren(
    h('div', {}, h('dt', {}, 'up for'), h('dd', {}, upText)),
    h('div', {}, h('dt', {}, 'requests/s'), h('dd', { id: 'tile-rps' }, formatValue(total))),
    h('div', {}, h('dt', {}, 'read-only'), h('dd', {}, ro ? 'yes' : 'no')),
    h('div', {}, h('dt', {}, 'auth'), h('dd', {}, server.authOn ? 'on' : 'off')),
  );
}

// Replaces a select's options only when they changed, so that a list being
// used from the keyboard is not rebuilt under it every poll.
function syncOptions(select, values) {
  const want = values.map((v) => (Array.isArray(v) ? v[0] : v));
  const have = [...select.options].map((o) => o.value);
  if (want.length === have.length && want.every((v, i) => v === have[i])) return;
  const chosen = select.value;
  select.replaceChildren(...options(values, want.includes(chosen) ? chosen : want[0]));
}

// Series from the history: keys -> [{name, points}].
function seriesOf(keys, nameOf = (k) => k) {
  return keys.map((k) => ({ name: nameOf(k), points: history.map((s) => [s.t, s.v.has(k) ? s.v.get(k) : null]) }));
}

function keysWith(prefix) {
  const keys = new Set();
  for (const s of history) for (const k of s.v.keys()) if (k.startsWith(prefix)) keys.add(k);
  return [...keys].sort();
}

// The n keys with the largest sum over the window.
function top(keys, n) {
  const sum = (k) => history.reduce((a, s) => a + (s.v.get(k) || 0), 0);
  return keys
    .map((k) => [k, sum(k)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k]) => k);
}

function renderAll() {
  if (!statusEl) return;
  const n = history.length;
  statusEl.textContent = lastError || `${n} sample${n === 1 ? '' : 's'}${paused ? ' · paused' : ''}`;
  statusEl.classList.toggle('form-error', !!lastError);
  statusEl.dataset.samples = String(n);
  if (!visible) return;
  const now = Date.now();
  const draw = (id, title, series, unit, note) => {
    drawChart(charts[id], { title, unit, series, windowMs: WINDOW_MS, now });
    if (note && series.every((s) => s.points.every(([, v]) => v === null))) charts[id].append(h('p', { class: 'hint' }, note));
  };

  const routes = keysWith('req:').filter((k) => k !== 'req:total');
  draw('requests', 'Requests/s', seriesOf(['req:total', ...top(routes, 6)], (k) => k.slice(4)), '/s');

  const routeNames = routes.map((k) => k.slice(4));
  syncOptions(routeSelect, [['*', 'all routes'], ...routeNames]);
  const r = routeSelect.value || '*';
  draw('latency', 'Latency', seriesOf([`lat:${r}:p50`, `lat:${r}:p99`], (k) => k.slice(k.lastIndexOf(':') + 1)), 'ms');

  draw('errors', 'Errors/s', seriesOf(['err:4xx', 'err:5xx'], (k) => k.slice(4)), '/s');
  const mut = keysWith('mut:');
  draw('mutations', 'Mutations/s', seriesOf(mut, (k) => k.slice(4)), '/s');
  const store = top(keysWith('store:'), 8);
  const storeErr = keysWith('storeerr:').filter((k) => history.some((s) => s.v.get(k) > 0));
  draw('store', 'Store ops/s', seriesOf([...store, ...storeErr], (k) => (k.startsWith('storeerr:') ? `${k.slice(9)} errors` : k.slice(6))), '/s');
  draw('rpc', 'Store call latency', seriesOf(top(keysWith('rpc:'), 8), (k) => k.slice(4)), 'ms', 'No Thrift calls: the store is not HBase.');
  const sinks = keysWith('sink:');
  draw('sinks', 'WAL/CDC records/s', seriesOf(sinks, (k) => k.slice(5).replace(':', ' ')), '/s', 'No sink records yet.');
  const lag = keysWith('lag:');
  draw('applier', 'Applier lag', seriesOf(lag, (k) => k.slice(4)), 'ms', 'The applier is not running on this node, or has applied nothing yet.');
  draw('depth', 'Queue depth', seriesOf(keysWith('depth:'), (k) => k.slice(6)), '', 'This server exports no queue-depth gauge.');

  const names = [...new Set(history.flatMap((s) => [...s.raw.keys()].map((k) => k.replace(/\{.*$/, ''))))].sort();
  syncOptions(anySelect, [['', '(pick a series)'], ...names]);
  const any = anySelect.value;
  if (any) {
    const keys = [...new Set(history.flatMap((s) => [...s.raw.keys()].filter((k) => k === any || k.startsWith(`${any}{`))))].slice(0, 8);
    const counter = counterLike(any);
    const series = keys.map((k) => ({
      name: k.slice(any.length) || any,
      points: history.map((s, i) => {
        const v = s.raw.get(k);
        if (v === undefined) return [s.t, null];
        if (!counter) return [s.t, v];
        const p = history[i - 1];
        if (!p) return [s.t, null];
        const pv = p.raw.get(k) ?? 0;
        return [s.t, (v >= pv ? v - pv : v) / ((s.t - p.t) / 1000)];
      }),
    }));
    draw('any', any, series, counter ? '/s' : '');
  } else {
    draw('any', 'Any series', [], '');
  }
}
