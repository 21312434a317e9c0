// mutate.js — the Mutate view: INSERT, UPDATE or DELETE one edge from a form
// built from the table's schema, or send a pasted JSON batch; the answer's
// per-key statuses are shown as a table, with the raw JSON and the curl line.

import { h, field, Errors, gate, objectsTable, options, resultView, statusBadge } from './dom.js';
import { call, can, bus, tablePath } from './api.js';
import { targetPicker } from './query.js';

let picker;
let body;
let resultEl;
let errs;
let fs;
let permNote;

export function mount(el) {
  picker = targetPicker('m', () => render());
  body = h('div', { class: 'mutate-body' });
  resultEl = h('div', { id: 'mutate-result', 'aria-live': 'polite' });
  el.append(h('h2', { id: 'h-mutate' }, 'Mutate'), picker.el, body, resultEl);
  bus.addEventListener('key-changed', () => render());
  render();
}

export async function show(parts) {
  const [db, table] = parts;
  if (db && table) await picker.set(db, table);
}

const INTEGER = new Set(['long', 'int', 'short', 'byte']);

// A property value typed as the schema says; numbers beyond 2^53 stay strings
// (the server casts them).
function typed(type, text) {
  if (INTEGER.has(type)) return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
  if (type === 'float' || type === 'double') return text !== '' && !Number.isNaN(Number(text)) ? Number(text) : text;
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'object') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function render() {
  const desc = picker.state.desc;
  resultEl.replaceChildren();
  if (!desc) {
    body.replaceChildren(h('p', { class: 'muted' }, 'Name a database and a table (or alias) above.'));
    return;
  }
  const s = desc.schema || {};
  const kind = desc.type;
  const multi = kind === 'multiEdge';
  const db = picker.db();
  const table = picker.table();
  errs = new Errors();

  const modeOne = h('input', { type: 'radio', name: 'm-kind', id: 'm-kind-one', value: 'one', checked: true });
  const modeBatch = h('input', { type: 'radio', name: 'm-kind', id: 'm-kind-batch', value: 'batch' });
  const chooser = h(
    'fieldset',
    { class: 'choice' },
    h('legend', {}, 'What to send'),
    h('span', { class: 'inline-check' }, modeOne, h('label', { for: modeOne.id }, 'One edge')),
    h('span', { class: 'inline-check' }, modeBatch, h('label', { for: modeBatch.id }, 'A JSON batch')),
  );

  const type = errs.add(field('Type', h('select', { id: 'm-type' }, options(kind === 'immutableEdge' ? ['INSERT'] : ['INSERT', 'UPDATE', 'DELETE'])), { match: /\btype\b|INSERT only/i }));
  const version = errs.add(field('Version', h('input', { id: 'm-version', inputmode: 'numeric', value: String(Date.now()) }), { match: /version/i, hint: 'A higher version wins; defaults to now in ms.' }));
  const id = multi ? errs.add(field('Id', h('input', { id: 'm-id', autocomplete: 'off', spellcheck: 'false' }), { match: /\bid\b/i })) : null;
  const source = errs.add(field(kind === 'vertex' ? 'Id' : 'Source', h('input', { id: 'm-source', autocomplete: 'off', spellcheck: 'false' }), { match: /source|key too long/i }));
  const target = kind === 'vertex' ? null : errs.add(field('Target', h('input', { id: 'm-target', autocomplete: 'off', spellcheck: 'false' }), { match: /target/i }));
  const props = (s.properties || []).map((p) =>
    errs.add(
      field(`${p.name} (${p.type}${p.nullable ? '' : ', required'})`, h('input', { id: `m-prop-${p.name}`, autocomplete: 'off', spellcheck: 'false', dataset: { prop: p.name, type: p.type } }), {
        match: new RegExp(`'${p.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`),
      }),
    ),
  );
  const one = h(
    'div',
    { class: 'one-edge' },
    h('div', { class: 'grid2' }, type.wrap, version.wrap, id && id.wrap, source.wrap, target && target.wrap),
    props.length ? h('fieldset', { class: 'props-set' }, h('legend', {}, 'Properties (empty: left out)'), h('div', { class: 'grid2' }, props.map((p) => p.wrap))) : null,
  );

  const example = {
    mutations: [
      {
        type: 'INSERT',
        edge: {
          version: Date.now(),
          ...(multi ? { id: 'id-1' } : {}),
          source: 'a',
          target: 'b',
          properties: Object.fromEntries((s.properties || []).map((p) => [p.name, INTEGER.has(p.type) ? 1 : p.type === 'boolean' ? true : 'x'])),
        },
      },
    ],
  };
  const batch = errs.add(
    field('Batch (JSON: {"mutations": [...]} or a bare array)', h('textarea', { id: 'm-batch', rows: 10, spellcheck: 'false' }, JSON.stringify(example, null, 2)), {
      match: /mutations|malformed|JSON/i,
    }),
  );
  batch.wrap.hidden = true;
  const sync = field('Apply before answering (/sync)', h('input', { type: 'checkbox', id: 'm-sync' }), { check: true });
  const force = errs.add(field('force=true (the request mode wins over the table mode)', h('input', { type: 'checkbox', id: 'm-force' }), { check: true, match: /force|mode/i }));
  const context = field('Include the storage operations (mutation context)', h('input', { type: 'checkbox', id: 'm-context' }), { check: true });
  const toggle = () => {
    one.hidden = modeBatch.checked;
    batch.wrap.hidden = !modeBatch.checked;
  };
  modeOne.addEventListener('change', toggle);
  modeBatch.addEventListener('change', toggle);

  const submit = h('button', { type: 'submit', id: 'm-send' }, 'Send');
  fs = h('fieldset', {}, h('legend', {}, `Mutate ${db}.${table}`), chooser, one, batch.wrap, h('div', { class: 'checks' }, sync.wrap, force.wrap, context.wrap), errs.formError, h('div', { class: 'actions' }, submit));
  const form = h('form', { id: 'mutate-form', novalidate: true }, fs);
  body.replaceChildren(form);
  if (permNote) permNote.remove();
  permNote = gate(fs, can('write', db, table));

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    let payload;
    if (modeBatch.checked) {
      let parsed;
      try {
        parsed = JSON.parse(batch.control.value);
      } catch (err) {
        return errs.show(`Batch: not valid JSON (${err.message})`);
      }
      payload = Array.isArray(parsed) ? { mutations: parsed } : parsed;
    } else {
      const edge = { version: typed('long', version.control.value.trim()) };
      if (id) edge.id = id.control.value;
      edge.source = source.control.value;
      edge.target = target ? target.control.value : source.control.value;
      edge.properties = {};
      for (const p of props) {
        const v = p.control.value;
        if (v !== '') edge.properties[p.control.dataset.prop] = typed(p.control.dataset.type, v);
      }
      payload = { mutations: [{ type: type.control.value, edge }] };
    }
    const route = `${tablePath(db, table)}/${multi ? 'multi-edges' : 'edges'}${sync.control.checked ? '/sync' : ''}${force.control.checked ? '?force=true' : ''}`;
    const headers = context.control.checked ? { 'AB-Include-Mutation-Context': 'true' } : {};
    const r = await call('POST', route, { body: JSON.stringify(payload), headers });
    if (!r.ok) errs.show(r.message, r.status);
    const results = r.ok && r.json && Array.isArray(r.json.results) ? r.json.results : null;
    const counts = {};
    for (const x of results || []) counts[x.status] = (counts[x.status] || 0) + 1;
    resultEl.replaceChildren(
      resultView(r, {
        table: results ? objectsTable(results, { caption: 'per-key statuses', className: 'statuses', render: { status: (v) => statusBadge(v) } }) : null,
        summary: Object.entries(counts)
          .map(([k, v]) => `${v} ${k}`)
          .join(', '),
      }),
    );
    version.control.value = String(Math.max(Date.now(), Number(version.control.value) + 1 || 0));
  });
}
