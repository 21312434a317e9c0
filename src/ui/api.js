// api.js — every call the console makes to actionbased: URLs, the API key (kept
// in this tab's sessionStorage only and sent on every call), the curl line of
// exactly what was sent, a small metadata cache, and what the key may do.

const KEY_ITEM = 'actionbase.apiKey';

// Events: 'key-changed', 'unauthorized' (detail: the result), 'catalog-changed'.
export const bus = new EventTarget();

// What the console learnt about the server: authOn (a call without a key got
// 401), readOnly (/health says so), version (GET /graph/v3).
export const server = { authOn: false, readOnly: false, version: '' };

export function apiKey() {
  try {
    return sessionStorage.getItem(KEY_ITEM) || '';
  } catch {
    return '';
  }
}

export function setApiKey(key) {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
  capsCache.clear();
  metaCache.clear();
  bus.dispatchEvent(new CustomEvent('key-changed'));
}

// One path segment, encoded.
export const enc = (s) => encodeURIComponent(String(s));

export function dbPath(db) {
  return `/graph/v3/databases/${enc(db)}`;
}

export function tablePath(db, table) {
  return `${dbPath(db)}/tables/${enc(table)}`;
}

// Query strings keep ':' ',' ';' readable (the server decodes them either way).
function encQ(s) {
  return encodeURIComponent(String(s)).replace(/%3A/gi, ':').replace(/%2C/gi, ',').replace(/%3B/gi, ';');
}

// path + "?a=1&b=2" from [[name, value]] or an object; empty values are left out.
export function withQuery(path, params) {
  const entries = Array.isArray(params) ? params : Object.entries(params || {});
  const parts = [];
  for (const [k, v] of entries) {
    if (v === undefined || v === null || v === '') continue;
    parts.push(`${encQ(k)}=${encQ(v)}`);
  }
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

function shellQuote(s) {
  return `'${String(s).replace(/'/g, `'\\''`)}'`;
}

// The curl line of a request as sent. The key is replaced by $AB_API_KEY
// unless showKey.
export function curlLine(req, showKey = false) {
  const parts = ['curl', '-X', req.method, shellQuote(req.url)];
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'Authorization' && !showKey) parts.push('-H', '"Authorization: Bearer $AB_API_KEY"');
    else parts.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (req.body !== undefined) parts.push('--data-raw', shellQuote(req.body));
  return parts.join(' ');
}

// The server's message for a failed call (its error body's "message").
export function messageOf(r) {
  if (r.error) return `The server could not be reached: ${r.error.message}`;
  if (r.json && typeof r.json === 'object' && typeof r.json.message === 'string' && r.json.message)
    return r.json.message;
  if (r.ok) return '';
  if (r.status === 404 && !r.text) return 'Not found.';
  return `${r.status} ${r.statusText || ''} ${r.text || ''}`.trim();
}

// Sends one request. body: an object (sent as JSON) or a string (sent as is).
// quiet: a 401 does not ask for a key. Resolves to {method, url, path, headers, body, status, ok, json, text, ms,
// message, curl()} and never rejects.
export async function call(method, path, { body, headers: extra = {}, noKey = false, quiet = false } = {}) {
  const headers = {};
  let payload;
  if (body !== undefined && body !== null) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['Content-Type'] = 'application/json';
  }
  const key = noKey ? '' : apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  Object.assign(headers, extra);
  const url = new URL(path, location.origin).href;
  const r = { method, path, url, headers, body: payload, status: 0, ok: false, json: null, text: '' };
  const t0 = performance.now();
  try {
    const resp = await fetch(url, { method, headers, body: payload, cache: 'no-store', credentials: 'omit' });
    r.status = resp.status;
    r.statusText = resp.statusText;
    r.ok = resp.ok;
    r.contentType = resp.headers.get('content-type') || '';
    r.text = await resp.text();
  } catch (e) {
    r.error = e;
  }
  r.ms = performance.now() - t0;
  if (r.text && r.contentType && r.contentType.includes('json')) {
    try {
      r.json = JSON.parse(r.text);
    } catch {
      r.json = null;
    }
  }
  r.message = messageOf(r);
  r.curl = (showKey) => curlLine(r, showKey);
  if (r.status === 401 && !noKey && !quiet) bus.dispatchEvent(new CustomEvent('unauthorized', { detail: r }));
  return r;
}

// ---- metadata, cached until a change or a new key ----

const metaCache = new Map();

async function cached(path) {
  if (!metaCache.has(path)) {
    const p = call('GET', path).then((r) => {
      if (!r.ok) metaCache.delete(path);
      return r;
    });
    metaCache.set(path, p);
  }
  return metaCache.get(path);
}

export function catalogChanged() {
  metaCache.clear();
  bus.dispatchEvent(new CustomEvent('catalog-changed'));
}

export const meta = {
  databases: () => cached('/graph/v3/databases?status=ALL'),
  database: (db) => cached(dbPath(db)),
  tables: (db) => cached(`${dbPath(db)}/tables?status=ALL`),
  table: (db, t) => cached(tablePath(db, t)),
  aliases: (db) => cached(`${dbPath(db)}/aliases?status=ALL`),
  alias: (db, a) => cached(`${dbPath(db)}/aliases/${enc(a)}`),
  // A table, or the table an alias names: {ok, table, alias?, message}.
  async resolve(db, name) {
    const t = await meta.table(db, name);
    if (t.ok) return { ok: true, table: t.json };
    const a = await meta.alias(db, name);
    if (a.ok && a.json && a.json.table) {
      const target = await meta.table(db, a.json.table);
      if (target.ok) return { ok: true, table: target.json, alias: a.json };
    }
    return { ok: false, message: t.status === 404 ? `No table or alias ${db}.${name}.` : t.message };
  },
};

// A queue's backing table carries "queue/v1 {...}" in its comment.
// A queue of the namespaces form (`queue/v1 {"partitions":N}`), the one the
// console manages; the databases form (`{"partitionCount":N,...}`) is a table here.
export function isQueueTable(t) {
  return t && typeof t.comment === 'string' && t.comment.startsWith('queue/v1 ')
    && t.comment.includes('"partitions"');
}

// ---- what the current key may do ----
//
// Without --auth and without --read-only everything is allowed and nothing is
// asked. Otherwise each permission is probed once per key with a request the
// server refuses before writing anything: the access check answers 403 (or
// 401) before the handler runs, and a handler that is reached answers 400 to
// the deliberately invalid request (a body that is not an object, lock=probe).

const capsCache = new Map();

function probeOf(action, db, table) {
  switch (action) {
    case 'meta':
      return db ? call('POST', `${dbPath(db)}/tables`, { body: '[]' }) : call('POST', '/graph/v3/databases', { body: '[]' });
    case 'write':
      return call('POST', withQuery(`${tablePath(db, table)}/edges`, { lock: 'probe' }), { body: '{}' });
    case 'queue-write':
      return call('POST', `/queue/v1/namespaces/${enc(db)}/queues/${enc(table)}/messages`, { body: '[]' });
    default:
      return call('GET', '/admin/v1/keys');
  }
}

const LETTER = { meta: 'c', write: 'w', 'queue-write': 'w', admin: 'a' };

// action: 'meta' (metadata changes in db, or creating databases without db),
// 'write' (edges of db.table), 'queue-write', 'admin'. Resolves to {ok, why}.
export function can(action, db, table) {
  if (server.readOnly && action !== 'admin')
    return Promise.resolve({ ok: false, why: 'This server is read-only (--read-only): every write answers 403.' });
  if (!server.authOn) return Promise.resolve({ ok: true });
  const key = `${action}|${db || '*'}|${table || ''}`;
  if (!capsCache.has(key)) {
    capsCache.set(
      key,
      probeOf(action, db, table).then((r) => {
        if (r.status === 401 || r.status === 403) {
          const scope = table ? `${db}.${table}` : db || '*';
          return { ok: false, why: `Not allowed for this key (needs '${LETTER[action]}' on ${scope}): ${r.message}` };
        }
        return { ok: true };
      }),
    );
  }
  return capsCache.get(key);
}
