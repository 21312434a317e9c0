// dom.js — small DOM helpers shared by the views: element building, labelled
// fields with their own error slot, a server message placed next to the field
// it names, permission gates, and result rendering (table, raw JSON, curl).

let uid = 0;
export const nextId = (prefix = 'f') => `${prefix}${++uid}`;

// h('button', {type: 'button', onclick: f, class: 'x'}, 'text', child, [more])
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  let value;
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'value') value = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  if (value !== undefined) el.value = value;
  return el;
}

export function options(values, selected) {
  return values.map((v) => {
    const [value, label] = Array.isArray(v) ? v : [v, v];
    return h('option', { value, selected: value === selected }, label);
  });
}

// A labelled control with a hint and an error slot (aria-describedby both).
// match: a RegExp that recognises the server messages about this field.
export function field(label, control, { hint, match, check = false } = {}) {
  if (!control.id) control.id = nextId();
  const id = control.id;
  const err = h('p', { class: 'field-error', id: `${id}-err`, hidden: true });
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null;
  control.setAttribute('aria-describedby', [hintEl && hintEl.id, err.id].filter(Boolean).join(' '));
  const lab = h('label', { for: id }, label);
  const wrap = check
    ? h('div', { class: 'field field-check' }, control, lab, hintEl, err)
    : h('div', { class: 'field' }, lab, control, hintEl, err);
  return { wrap, control, err, match };
}

// Collects a form's fields; show(message) puts a server message next to the
// first field whose pattern matches it, else at the form's level.
export class Errors {
  constructor() {
    this.fields = [];
    this.formError = h('div', { class: 'form-error', role: 'alert', hidden: true });
  }

  add(f) {
    this.fields.push(f);
    return f;
  }

  clear() {
    for (const f of this.fields) {
      f.err.hidden = true;
      f.err.textContent = '';
      f.control.removeAttribute('aria-invalid');
    }
    this.formError.hidden = true;
    this.formError.textContent = '';
  }

  show(message, status) {
    this.clear();
    const f = this.fields.find((x) => x.match && x.match.test(message) && !x.wrap.closest('[hidden]'));
    const text = status ? `${status}: ${message}` : message;
    if (f) {
      f.err.textContent = text;
      f.err.hidden = false;
      f.control.setAttribute('aria-invalid', 'true');
      f.err.setAttribute('role', 'alert');
      f.control.focus();
    } else {
      this.formError.textContent = text;
      this.formError.hidden = false;
    }
  }
}

// Disables target (a button or a fieldset) when the permission promise says
// no, and says why next to it (once per view: buttons refused for the same
// reason share one note): what a key may not do is shown, not hidden.
// Returns {remove()} to take the note away when the target is gated again.
export function gate(target, permission, noteHost) {
  target.disabled = true;
  target.setAttribute('aria-busy', 'true');
  let created = null;
  permission.then((p) => {
    target.removeAttribute('aria-busy');
    target.disabled = !p.ok;
    target.dataset.permission = p.ok ? 'allowed' : 'denied';
    if (p.ok) return;
    target.title = p.why;
    const host = noteHost || target;
    const scope = host.closest('.view') || document;
    let note = [...scope.querySelectorAll('.perm-note')].find((n) => n.textContent === p.why);
    if (!note && host.isConnected) {
      note = created = h('p', { class: 'perm-note', id: nextId('perm') }, p.why);
      // A form's note goes above it, where it is read first; a button's after it.
      if (target.tagName === 'FIELDSET' && !noteHost) target.before(note);
      else host.after(note);
    }
    if (note) target.setAttribute('aria-describedby', note.id);
  });
  return {
    remove() {
      if (created) created.remove();
    },
  };
}

export function statusBadge(status) {
  const cls = /^(CREATED|UPDATED|DELETED)$/.test(status)
    ? 'ok'
    : /^(ERROR|INVALID)$/.test(status)
      ? 'bad'
      : status === 'QUEUED'
        ? 'queued'
        : 'idle';
  return h('span', { class: `badge ${cls}` }, status);
}

function cell(v) {
  if (v === undefined) return '';
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

// A table of objects; columns default to the union of their keys.
// render: {column: (value, row) => Node|string}.
export function objectsTable(rows, { columns, caption, render = {}, className = '' } = {}) {
  const cols = columns || [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c)));
  const body = rows.map((r) => h('tr', {}, cols.map((c) => h('td', {}, render[c] ? render[c](r[c], r) : cell(r[c])))));
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption || 'results' },
    h('table', { class: `data ${className}` }, caption ? h('caption', {}, caption) : null, h('thead', {}, head), h('tbody', {}, body)),
  );
}

// Edges as rows: version, source, target, then every property seen.
export function edgesTable(edges, propertyOrder = [], caption = 'edges') {
  const props = [...new Set([...propertyOrder, ...edges.flatMap((e) => Object.keys(e.properties || {}))])];
  const withContext = edges.some((e) => e.context && Object.keys(e.context).length > 0);
  const rows = edges.map((e) => {
    const r = { version: e.version, source: e.source, target: e.target };
    for (const p of props) r[p] = (e.properties || {})[p];
    if (withContext) r.context = e.context;
    return r;
  });
  const columns = ['version', 'source', 'target', ...props, ...(withContext ? ['context'] : [])];
  return objectsTable(rows, { columns, caption, className: 'edges' });
}

function copyText(text, pre) {
  if (navigator.clipboard && window.isSecureContext)
    return navigator.clipboard.writeText(text).then(
      () => true,
      () => selectText(pre),
    );
  return Promise.resolve(selectText(pre));
}

function selectText(pre) {
  const range = document.createRange();
  range.selectNodeContents(pre);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  return false;
}

// The curl line of a result, with a copy button and a switch that shows the key.
export function curlBox(r) {
  const pre = h('pre', { class: 'curl-line', tabindex: 0 }, r.curl(false));
  const status = h('span', { class: 'muted', 'aria-live': 'polite' });
  const show = h('input', { type: 'checkbox', id: nextId('showkey') });
  show.addEventListener('change', () => {
    pre.textContent = r.curl(show.checked);
  });
  const copy = h('button', { type: 'button', class: 'secondary small' }, 'Copy');
  copy.addEventListener('click', () =>
    copyText(pre.textContent, pre).then((ok) => {
      status.textContent = ok ? 'copied' : 'selected: press Ctrl+C';
    }),
  );
  const hasKey = 'Authorization' in r.headers;
  return h(
    'div',
    { class: 'curl' },
    h('div', { class: 'curl-head' }, h('span', { class: 'label' }, 'curl'), copy, hasKey ? h('span', { class: 'inline-check' }, show, h('label', { for: show.id }, 'show key')) : null, status),
    pre,
  );
}

// Status line + (table) + raw JSON + curl line of one call.
export function resultView(r, { table, summary } = {}) {
  const cls = r.ok ? 'ok' : r.status >= 500 || r.status === 0 ? 'bad' : 'warn';
  const line = h(
    'p',
    { class: 'result-status' },
    h('span', { class: `badge ${cls}` }, r.status ? `${r.status} ${r.statusText || ''}`.trim() : 'no answer'),
    ` ${r.method} ${r.path} · ${Math.round(r.ms)} ms`,
    summary ? ` · ${summary}` : '',
  );
  const err = !r.ok ? h('div', { class: 'form-error', role: 'alert' }, r.message) : null;
  const raw = r.text ? (r.json !== null ? JSON.stringify(r.json, null, 2) : r.text) : '(empty body)';
  const json = h('details', { class: 'raw', open: !table }, h('summary', {}, 'Raw JSON'), h('pre', { class: 'json', tabindex: 0 }, raw));
  return h('div', { class: 'result', dataset: { status: String(r.status) } }, line, err, table || null, json, curlBox(r));
}

export function dl(pairs) {
  return h(
    'dl',
    { class: 'props' },
    pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v instanceof Node ? v : cell(v))]),
  );
}

export function when(ms) {
  if (!ms) return '';
  try {
    return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  } catch {
    return String(ms);
  }
}
