// browse.js — the Browse view: databases, their tables (schema, indexes,
// groups, caches, mode, direction), aliases and queues, with the forms that
// create and change them; the server's error messages appear next to the field.

import { h, field, Errors, gate, objectsTable, dl, when, options, nextId, resultView } from './dom.js';
import { call, meta, can, bus, dbPath, tablePath, enc, catalogChanged, isQueueTable, withQuery } from './api.js';

export const TYPES = ['string', 'long', 'int', 'short', 'byte', 'boolean', 'float', 'double', 'object'];
const KINDS = [
  ['EDGE', 'EDGE — one edge per source and target'],
  ['MULTI_EDGE', 'MULTI_EDGE — many edges per pair, keyed by id'],
  ['IMMUTABLE_EDGE', 'IMMUTABLE_EDGE — insert only'],
  ['VERTEX', 'VERTEX — one row per id'],
];
const MODES = ['SYNC', 'ASYNC', 'DROP', 'DENY'];
const KIND_OF_ANSWER = { edge: 'EDGE', multiEdge: 'MULTI_EDGE', immutableEdge: 'IMMUTABLE_EDGE', vertex: 'VERTEX' };

let dbList;
let detail;
let newDbButton;
let renderToken = 0;
let route = [];

export function mount(el) {
  newDbButton = h('button', { type: 'button', id: 'new-database', class: 'small' }, 'New database');
  newDbButton.addEventListener('click', () => openForm(databaseForm()));
  const openInput = h('input', { id: 'open-db', autocomplete: 'off', spellcheck: 'false' });
  const openForm_ = h(
    'form',
    { class: 'open-db', onsubmit: (e) => {
      e.preventDefault();
      if (openInput.value.trim()) location.hash = `#browse/${enc(openInput.value.trim())}`;
    } },
    field('Open a database by name', openInput).wrap,
    h('button', { type: 'submit', class: 'secondary small' }, 'Open'),
  );
  dbList = h('ul', { class: 'list', id: 'database-list' });
  detail = h('div', { class: 'detail', id: 'browse-detail' });
  el.append(
    h(
      'div',
      { class: 'browse' },
      h(
        'nav',
        { class: 'sidebar', 'aria-labelledby': 'h-databases' },
        h('div', { class: 'sidebar-head' }, h('h2', { id: 'h-databases' }, 'Databases'), newDbButton),
        dbList,
        openForm_,
      ),
      detail,
    ),
  );
  regateNewDb();
  bus.addEventListener('key-changed', () => {
    regateNewDb();
    if (location.hash.startsWith('#browse') || location.hash === '') show(route);
  });
  bus.addEventListener('catalog-changed', () => renderList());
}

let newDbNote;
function regateNewDb() {
  if (newDbNote) newDbNote.remove();
  newDbNote = gate(newDbButton, can('meta'));
}

export function show(parts) {
  route = parts;
  renderList();
  const [db, kind, name] = parts;
  const token = ++renderToken;
  const put = (...nodes) => {
    if (token === renderToken) detail.replaceChildren(...nodes);
  };
  if (!db) return renderHome(put);
  if (!kind) return renderDatabase(put, db);
  if (kind === 'table') return renderTable(put, db, name);
  if (kind === 'alias') return renderAlias(put, db, name);
  if (kind === 'queue') return renderQueue(put, db, name);
  return renderDatabase(put, db);
}

async function renderList() {
  const r = await meta.databases();
  const current = route[0];
  if (!r.ok) {
    dbList.replaceChildren(h('li', { class: 'perm-note' }, r.message));
    return;
  }
  if (r.json.length === 0) {
    dbList.replaceChildren(h('li', { class: 'muted' }, 'No databases yet.'));
    return;
  }
  dbList.replaceChildren(
    ...r.json.map((d) =>
      h(
        'li',
        {},
        h('a', { href: `#browse/${enc(d.database)}`, 'aria-current': d.database === current ? 'page' : false }, d.database),
        d.active ? null : h('span', { class: 'badge idle' }, 'inactive'),
      ),
    ),
  );
}

function openForm(form) {
  const slot = document.getElementById('form-slot') || detail;
  slot.replaceChildren(form);
  const first = form.querySelector('input, select, textarea');
  if (first) first.focus();
}

function cancelButton() {
  return h('button', { type: 'button', class: 'secondary', onclick: (e) => e.target.closest('form').remove() }, 'Cancel');
}

function renderHome(put) {
  put(
    h('h2', {}, 'Browse'),
    h('p', {}, 'Pick a database on the left, or create one. Tables, aliases and queues of a database are listed on its page.'),
    h('div', { id: 'form-slot' }),
  );
}

// ---- databases ----

function databaseForm() {
  const errs = new Errors();
  const name = errs.add(
    field('Name', h('input', { id: 'db-name', autocomplete: 'off', spellcheck: 'false' }), {
      hint: 'A letter, then letters, digits, _ or -; at most 64 characters.',
      match: /database|name/i,
    }),
  );
  const comment = errs.add(field('Comment', h('input', { id: 'db-comment', autocomplete: 'off' }), { match: /comment/i }));
  const submit = h('button', { type: 'submit', id: 'db-create' }, 'Create database');
  const fs = h('fieldset', {}, h('legend', {}, 'New database'), name.wrap, comment.wrap, errs.formError, h('div', { class: 'actions' }, submit, cancelButton()));
  const form = h('form', { id: 'database-form', novalidate: true }, fs);
  gate(fs, can('meta'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    const r = await call('POST', '/graph/v3/databases', { body: { database: name.control.value.trim(), comment: comment.control.value } });
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    location.hash = `#browse/${enc(r.json.database)}`;
  });
  return form;
}

function editDatabaseForm(d) {
  const errs = new Errors();
  const comment = errs.add(field('Comment', h('input', { id: 'dbe-comment', value: d.comment || '' }), { match: /comment/i }));
  const active = errs.add(field('Active', h('input', { type: 'checkbox', id: 'dbe-active', checked: d.active }), { check: true, match: /active|deactivate/i }));
  const submit = h('button', { type: 'submit' }, 'Save');
  const fs = h('fieldset', {}, h('legend', {}, `Edit database ${d.database}`), comment.wrap, active.wrap, errs.formError, h('div', { class: 'actions' }, submit, cancelButton()));
  const form = h('form', { novalidate: true }, fs);
  gate(fs, can('meta', d.database));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const body = {};
    if (comment.control.value !== (d.comment || '')) body.comment = comment.control.value;
    if (active.control.checked !== d.active) body.active = active.control.checked;
    const r = await call('PUT', dbPath(d.database), { body });
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    show(route);
  });
  return form;
}

// Delete in two steps: the button asks, a second button deletes.
function deleteControl(label, path, scopePermission, after) {
  const slot = h('span', { class: 'confirm' });
  const errs = h('div', { class: 'form-error', role: 'alert', hidden: true });
  const ask = h('button', { type: 'button', class: 'danger' }, label);
  ask.addEventListener('click', () => {
    const yes = h('button', { type: 'button', class: 'danger' }, 'Yes, delete');
    const no = h('button', { type: 'button', class: 'secondary' }, 'Keep');
    no.addEventListener('click', () => {
      slot.replaceChildren();
      ask.focus();
    });
    yes.addEventListener('click', async () => {
      const r = await call('DELETE', path);
      if (!r.ok) {
        errs.textContent = `${r.status}: ${r.message}`;
        errs.hidden = false;
        slot.replaceChildren();
        return;
      }
      catalogChanged();
      after();
    });
    slot.replaceChildren(h('span', {}, 'Delete for good?'), yes, no);
    yes.focus();
  });
  const wrap = h('span', { class: 'delete-control' }, ask, slot, errs);
  gate(ask, scopePermission);
  return wrap;
}

async function renderDatabase(put, db) {
  const [d, tables, aliases] = await Promise.all([meta.database(db), meta.tables(db), meta.aliases(db)]);
  if (!d.ok) {
    put(h('h2', {}, `Database ${db}`), h('div', { class: 'form-error', role: 'alert' }, d.status === 404 ? `Database ${db} does not exist.` : d.message), h('div', { id: 'form-slot' }));
    return;
  }
  const info = d.json;
  const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit database');
  edit.addEventListener('click', () => openForm(editDatabaseForm(info)));
  const perm = can('meta', db);
  gate(edit, perm);

  const tableRows = tables.ok ? tables.json.filter((t) => !isQueueTable(t)) : [];
  const queueRows = tables.ok ? tables.json.filter(isQueueTable) : [];
  const newTable = h('button', { type: 'button', id: 'new-table', class: 'small' }, 'New table');
  newTable.addEventListener('click', () => openForm(tableForm(db)));
  gate(newTable, perm);
  const newAlias = h('button', { type: 'button', id: 'new-alias', class: 'small' }, 'New alias');
  newAlias.addEventListener('click', () => openForm(aliasForm(db, tableRows)));
  gate(newAlias, perm);
  const newQueue = h('button', { type: 'button', id: 'new-queue', class: 'small' }, 'New queue');
  newQueue.addEventListener('click', () => openForm(queueForm(db)));
  gate(newQueue, perm);

  const link = (kind) => (v) => h('a', { href: `#browse/${enc(db)}/${kind}/${enc(v)}` }, v);
  const active = (v) => h('span', { class: `badge ${v ? 'ok' : 'idle'}` }, v ? 'active' : 'inactive');
  const listOrError = (r, rows, opts) => (!r.ok ? h('p', { class: 'perm-note' }, r.message) : rows.length === 0 ? h('p', { class: 'muted' }, 'None.') : objectsTable(rows, opts));

  put(
    h('div', { class: 'detail-head' }, h('h2', { id: 'h-detail' }, `Database ${db}`), active(info.active)),
    dl([
      ['comment', info.comment],
      ['revision', info.revision],
      ['created', `${when(info.createdAt)} by ${info.createdBy}`],
      ['updated', `${when(info.updatedAt)} by ${info.updatedBy}`],
    ]),
    h('div', { class: 'actions' }, edit, deleteControl('Delete database', dbPath(db), perm, () => (location.hash = '#browse'))),
    h('div', { id: 'form-slot' }),
    h(
      'section',
      { 'aria-labelledby': 'h-tables' },
      h('div', { class: 'section-head' }, h('h3', { id: 'h-tables' }, 'Tables'), newTable),
      listOrError(tables, tableRows, {
        caption: `tables of ${db}`,
        columns: ['table', 'type', 'mode', 'direction', 'active', 'comment'],
        render: { table: link('table'), active, direction: (v, row) => row.schema && row.schema.direction },
      }),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-aliases' },
      h('div', { class: 'section-head' }, h('h3', { id: 'h-aliases' }, 'Aliases'), newAlias),
      listOrError(aliases, aliases.ok ? aliases.json : [], {
        caption: `aliases of ${db}`,
        columns: ['alias', 'table', 'active', 'comment'],
        render: { alias: link('alias'), table: link('table'), active },
      }),
    ),
    h(
      'section',
      { 'aria-labelledby': 'h-queues' },
      h('div', { class: 'section-head' }, h('h3', { id: 'h-queues' }, 'Queues'), newQueue),
      listOrError(tables, queueRows.map((t) => ({ queue: t.table, storage: t.storage, enabled: t.active })), {
        caption: `queues of namespace ${db}`,
        render: { queue: link('queue'), enabled: (v) => h('span', { class: `badge ${v ? 'ok' : 'idle'}` }, v ? 'enabled' : 'disabled') },
      }),
    ),
  );
}

// ---- tables ----

function typeSelect(id, value) {
  return h('select', { id }, options(TYPES, value || 'string'));
}

function rowList(title, makeRow, initial, addLabel) {
  const list = h('div', { class: 'rows' });
  const add = h('button', { type: 'button', class: 'secondary small' }, addLabel);
  const rows = [];
  const addRow = (v) => {
    const r = makeRow(v, rows.length + 1);
    const rm = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${r.label}` }, 'Remove');
    const el = h('div', { class: 'row-item' }, r.nodes, rm);
    rm.addEventListener('click', () => {
      rows.splice(rows.indexOf(r), 1);
      el.remove();
      add.focus();
    });
    rows.push(r);
    list.append(el);
    return r;
  };
  add.addEventListener('click', () => {
    const r = addRow();
    const first = r.nodes[0].querySelector('input, select');
    if (first) first.focus();
  });
  for (const v of initial) addRow(v);
  const control = h('div', { class: 'row-list', id: nextId('rows'), tabindex: -1 }, list, add);
  return { control, values: () => rows.map((r) => r.value()).filter(Boolean), title };
}

function labelled(label, control) {
  if (!control.id) control.id = nextId();
  return h('span', { class: 'mini' }, h('label', { for: control.id }, label), control);
}

function propertyRow(p = {}, n) {
  const name = h('input', { value: p.name || '', class: 'prop-name', autocomplete: 'off', spellcheck: 'false' });
  const type = h('select', { class: 'prop-type' }, options(TYPES, p.type || 'string'));
  const nullable = h('input', { type: 'checkbox', class: 'prop-nullable', checked: p.nullable !== false });
  const comment = h('input', { value: p.comment || '', class: 'prop-comment' });
  return {
    label: `property ${n}`,
    nodes: [labelled(`Property ${n} name`, name), labelled('type', type), labelled('nullable', nullable), labelled('comment', comment)],
    value: () => (name.value.trim() ? { name: name.value.trim(), type: type.value, nullable: nullable.checked, comment: comment.value } : null),
  };
}

// "created_at DESC, version" -> [{field, order}]
function parseFields(text) {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [f, o] = s.split(/\s+/);
      return { field: f, order: (o || 'ASC').toUpperCase() };
    });
}

const fieldsText = (fields) => (fields || []).map((f) => `${f.field} ${f.order || 'ASC'}`).join(', ');

function indexRow(ix = {}, n) {
  const name = h('input', { value: ix.index || '', class: 'index-name', autocomplete: 'off', spellcheck: 'false' });
  const fields = h('input', { value: fieldsText(ix.fields), class: 'index-fields', placeholder: 'created_at DESC', spellcheck: 'false' });
  return {
    label: `index ${n}`,
    nodes: [labelled(`Index ${n} name`, name), labelled('fields (field ASC|DESC, …)', fields)],
    value: () => (name.value.trim() ? { index: name.value.trim(), fields: parseFields(fields.value), comment: ix.comment || '' } : null),
  };
}

function cacheRow(c = {}, n) {
  const name = h('input', { value: c.cache || '', class: 'cache-name', autocomplete: 'off', spellcheck: 'false' });
  const fields = h('input', { value: fieldsText(c.fields), class: 'cache-fields', placeholder: 'created_at DESC', spellcheck: 'false' });
  const limit = h('input', { type: 'number', min: 1, value: c.limit || 100, class: 'cache-limit' });
  return {
    label: `cache ${n}`,
    nodes: [labelled(`Cache ${n} name`, name), labelled('fields', fields), labelled('limit', limit)],
    value: () =>
      name.value.trim() ? { cache: name.value.trim(), fields: parseFields(fields.value), limit: Number(limit.value), comment: c.comment || '' } : null,
  };
}

function tableForm(db) {
  const errs = new Errors();
  const name = errs.add(
    field('Name', h('input', { id: 'tbl-name', autocomplete: 'off', spellcheck: 'false' }), {
      match: /'table'|Invalid table|table name|Table \S+ already|named \S+ already/i,
      hint: 'A letter, then letters, digits, _ or -.',
    }),
  );
  const comment = errs.add(field('Comment', h('input', { id: 'tbl-comment' }), { match: /comment/i }));
  const storage = errs.add(field('Storage', h('input', { id: 'tbl-storage', value: `datastore://${db}/`, spellcheck: 'false' }), { match: /storage/i, hint: 'datastore://<namespace>/<table>' }));
  let storageTouched = false;
  storage.control.addEventListener('input', () => (storageTouched = true));
  name.control.addEventListener('input', () => {
    if (!storageTouched) storage.control.value = `datastore://${db.toLowerCase().replace(/[^a-z_]/g, '_')}/${name.control.value.trim()}`;
  });
  const mode = errs.add(field('Mode', h('select', { id: 'tbl-mode' }, options(MODES, 'SYNC')), { match: /\bmode\b/i }));
  const kind = errs.add(field('Type', h('select', { id: 'tbl-type' }, options(KINDS, 'EDGE')), { match: /immutable|schema\.type|table type/i }));
  const direction = errs.add(field('Direction', h('select', { id: 'tbl-direction' }, options(['BOTH', 'OUT', 'IN'], 'BOTH')), { match: /direction/i }));
  const srcType = errs.add(field('Source type', typeSelect('tbl-source-type'), { match: /source/i }));
  const srcComment = field('Source comment', h('input', { id: 'tbl-source-comment' }));
  const tgtType = errs.add(field('Target type', typeSelect('tbl-target-type'), { match: /target/i }));
  const tgtComment = field('Target comment', h('input', { id: 'tbl-target-comment' }));
  const idType = errs.add(field('Id type', typeSelect('tbl-id-type'), { match: /\bid\b/i }));
  const idComment = field('Id comment', h('input', { id: 'tbl-id-comment' }));
  const props = rowList('Properties', propertyRow, [], 'Add property');
  const propsField = errs.add(field('Properties', props.control, { match: /propert|nullable|optional fields/i }));
  const indexes = rowList('Indexes', indexRow, [], 'Add index');
  const indexField = errs.add(field('Indexes', indexes.control, { match: /index/i }));
  const caches = rowList('Caches', cacheRow, [], 'Add cache');
  const cacheField = errs.add(field('Caches', caches.control, { match: /cache/i }));
  const groups = errs.add(
    field('Groups (JSON)', h('textarea', { id: 'tbl-groups', rows: 3, spellcheck: 'false' }, '[]'), {
      match: /group|bucket|valueField/i,
      hint: '[{"group": "per_day", "type": "COUNT", "directionType": "BOTH", "fields": [{"name": "created_at", "bucket": {"type": "date", "unit": "day", "timezone": "UTC", "format": "yyyyMMdd"}}]}]',
    }),
  );
  const edgeOnly = [direction.wrap, srcType.wrap, srcComment.wrap, tgtType.wrap, tgtComment.wrap, indexField.wrap, cacheField.wrap, groups.wrap];
  const syncKind = () => {
    const k = kind.control.value;
    for (const w of edgeOnly) w.hidden = k === 'VERTEX';
    idType.wrap.hidden = idComment.wrap.hidden = !(k === 'VERTEX' || k === 'MULTI_EDGE');
  };
  kind.control.addEventListener('change', syncKind);
  syncKind();
  const submit = h('button', { type: 'submit', id: 'tbl-create' }, 'Create table');
  const fs = h(
    'fieldset',
    {},
    h('legend', {}, `New table in ${db}`),
    h('div', { class: 'grid2' }, name.wrap, comment.wrap, storage.wrap, mode.wrap, kind.wrap, direction.wrap, srcType.wrap, srcComment.wrap, tgtType.wrap, tgtComment.wrap, idType.wrap, idComment.wrap),
    propsField.wrap,
    indexField.wrap,
    cacheField.wrap,
    groups.wrap,
    errs.formError,
    h('div', { class: 'actions' }, submit, cancelButton()),
  );
  const form = h('form', { id: 'table-form', novalidate: true }, fs);
  gate(fs, can('meta', db));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    const k = kind.control.value;
    let groupList;
    try {
      groupList = JSON.parse(groups.control.value || '[]');
    } catch (err) {
      return errs.show(`Groups: not valid JSON (${err.message})`);
    }
    const schema = { type: k };
    if (k === 'VERTEX') {
      schema.id = { type: idType.control.value, comment: idComment.control.value };
      schema.properties = props.values();
    } else {
      if (k === 'MULTI_EDGE') schema.id = { type: idType.control.value, comment: idComment.control.value };
      schema.source = { type: srcType.control.value, comment: srcComment.control.value };
      schema.target = { type: tgtType.control.value, comment: tgtComment.control.value };
      schema.direction = direction.control.value;
      schema.properties = props.values();
      schema.indexes = indexes.values();
      schema.groups = groupList;
      schema.caches = caches.values();
    }
    const body = { table: name.control.value.trim(), comment: comment.control.value, storage: storage.control.value.trim(), mode: mode.control.value, schema };
    const r = await call('POST', `${dbPath(db)}/tables`, { body });
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    location.hash = `#browse/${enc(db)}/table/${enc(r.json.table)}`;
  });
  return form;
}

// The schema of an answer in the spelling a request takes.
function requestSchema(s) {
  const out = JSON.parse(JSON.stringify(s));
  out.type = KIND_OF_ANSWER[s.type] || s.type;
  return out;
}

function editTableForm(db, t) {
  const errs = new Errors();
  const comment = errs.add(field('Comment', h('input', { id: 'tble-comment', value: t.comment || '' }), { match: /comment/i }));
  const mode = errs.add(field('Mode', h('select', { id: 'tble-mode' }, options(MODES, t.mode)), { match: /\bmode\b/i }));
  const active = errs.add(field('Active', h('input', { type: 'checkbox', id: 'tble-active', checked: t.active }), { check: true, match: /active|alias/i }));
  const replace = field('Replace the schema', h('input', { type: 'checkbox', id: 'tble-replace' }), { check: true });
  const schema = errs.add(
    field('Schema (JSON)', h('textarea', { id: 'tble-schema', rows: 12, spellcheck: 'false', disabled: true }, JSON.stringify(requestSchema(t.schema), null, 2)), {
      match: /schema|propert|index|cache|group|direction|optional/i,
      hint: 'Only nullable properties may be added.',
    }),
  );
  replace.control.addEventListener('change', () => (schema.control.disabled = !replace.control.checked));
  const submit = h('button', { type: 'submit' }, 'Save');
  const fs = h('fieldset', {}, h('legend', {}, `Edit table ${db}.${t.table}`), comment.wrap, mode.wrap, active.wrap, replace.wrap, schema.wrap, errs.formError, h('div', { class: 'actions' }, submit, cancelButton()));
  const form = h('form', { novalidate: true }, fs);
  gate(fs, can('meta', db));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    const body = {};
    if (comment.control.value !== (t.comment || '')) body.comment = comment.control.value;
    if (mode.control.value !== t.mode) body.mode = mode.control.value;
    if (active.control.checked !== t.active) body.active = active.control.checked;
    if (replace.control.checked) {
      try {
        body.schema = JSON.parse(schema.control.value);
      } catch (err) {
        return errs.show(`Schema: not valid JSON (${err.message})`);
      }
    }
    const r = await call('PUT', tablePath(db, t.table), { body });
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    show(route);
  });
  return form;
}

async function renderTable(put, db, name) {
  const r = await meta.table(db, name);
  if (!r.ok) {
    put(h('h2', {}, `Table ${db}.${name}`), h('div', { class: 'form-error', role: 'alert' }, r.status === 404 ? `Table ${db}.${name} does not exist.` : r.message));
    return;
  }
  const t = r.json;
  const s = t.schema || {};
  const perm = can('meta', db);
  const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit table');
  edit.addEventListener('click', () => openForm(editTableForm(db, t)));
  gate(edit, perm);
  const ends = [];
  if (s.id) ends.push({ role: 'id', type: s.id.type, comment: s.id.comment });
  if (s.source) ends.push({ role: 'source', type: s.source.type, comment: s.source.comment });
  if (s.target) ends.push({ role: 'target', type: s.target.type, comment: s.target.comment });
  const section = (id, title, rows, opts) =>
    h('section', { 'aria-labelledby': id }, h('h3', { id }, title), rows.length ? objectsTable(rows, opts) : h('p', { class: 'muted' }, 'None.'));
  const fieldList = (v) => (v || []).map((f) => `${f.field || f.name} ${f.order || ''}`.trim()).join(', ');
  put(
    h('div', { class: 'detail-head' }, h('h2', { id: 'h-detail' }, `Table ${db}.${t.table}`), h('span', { class: `badge ${t.active ? 'ok' : 'idle'}` }, t.active ? 'active' : 'inactive')),
    dl([
      ['type', t.type],
      ['mode', t.mode],
      ['direction', s.direction],
      ['storage', t.storage],
      ['comment', t.comment],
      ['revision', t.revision],
      ['created', `${when(t.createdAt)} by ${t.createdBy}`],
      ['updated', `${when(t.updatedAt)} by ${t.updatedBy}`],
    ]),
    h(
      'div',
      { class: 'actions' },
      h('a', { class: 'button secondary', href: `#query/${enc(db)}/${enc(t.table)}` }, 'Query'),
      h('a', { class: 'button secondary', href: `#mutate/${enc(db)}/${enc(t.table)}` }, 'Mutate'),
      edit,
      deleteControl('Delete table', tablePath(db, t.table), perm, () => (location.hash = `#browse/${enc(db)}`)),
    ),
    h('div', { id: 'form-slot' }),
    section('h-ends', 'Source, target, id', ends, { caption: 'vertex fields' }),
    section('h-props', 'Properties', s.properties || [], { caption: 'properties', columns: ['name', 'type', 'nullable', 'comment'] }),
    section('h-indexes', 'Indexes', s.indexes || [], { caption: 'indexes', columns: ['index', 'fields', 'comment'], render: { fields: fieldList } }),
    section('h-groups', 'Groups', s.groups || [], {
      caption: 'groups',
      columns: ['group', 'type', 'fields', 'valueField', 'directionType', 'ttl', 'comment'],
      render: { fields: (v) => (v || []).map((f) => (f.bucket ? `${f.name} (${f.bucket.unit} ${f.bucket.format || ''})` : f.name)).join(', ') },
    }),
    section('h-caches', 'Caches', s.caches || [], { caption: 'caches', columns: ['cache', 'fields', 'limit', 'comment'], render: { fields: fieldList } }),
    h('details', { class: 'raw' }, h('summary', {}, 'Raw JSON'), h('pre', { class: 'json', tabindex: 0 }, JSON.stringify(t, null, 2))),
  );
}

// ---- aliases ----

function aliasForm(db, tables, existing) {
  const errs = new Errors();
  const name = existing
    ? null
    : errs.add(field('Alias', h('input', { id: 'alias-name', autocomplete: 'off', spellcheck: 'false' }), { match: /'alias'|Invalid alias|alias name|already exists/i }));
  const table = errs.add(
    field('Table', h('select', { id: 'alias-table' }, options(tables.map((t) => t.table), existing && existing.table)), { match: /target|table/i }),
  );
  const comment = errs.add(field('Comment', h('input', { id: 'alias-comment', value: existing ? existing.comment : '' }), { match: /comment/i }));
  const active = existing ? errs.add(field('Active', h('input', { type: 'checkbox', id: 'alias-active', checked: existing.active }), { check: true, match: /active/i })) : null;
  const submit = h('button', { type: 'submit' }, existing ? 'Save' : 'Create alias');
  const fs = h(
    'fieldset',
    {},
    h('legend', {}, existing ? `Edit alias ${db}.${existing.alias}` : `New alias in ${db}`),
    name && name.wrap,
    table.wrap,
    comment.wrap,
    active && active.wrap,
    errs.formError,
    h('div', { class: 'actions' }, submit, cancelButton()),
  );
  const form = h('form', { id: 'alias-form', novalidate: true }, fs);
  gate(fs, can('meta', db));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    let r;
    if (existing) {
      const body = {};
      if (table.control.value !== existing.table) body.table = table.control.value;
      if (comment.control.value !== (existing.comment || '')) body.comment = comment.control.value;
      if (active.control.checked !== existing.active) body.active = active.control.checked;
      r = await call('PUT', `${dbPath(db)}/aliases/${enc(existing.alias)}`, { body });
    } else {
      r = await call('POST', `${dbPath(db)}/aliases`, { body: { alias: name.control.value.trim(), table: table.control.value, comment: comment.control.value } });
    }
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    if (existing) show(route);
    else location.hash = `#browse/${enc(db)}/alias/${enc(r.json.alias)}`;
  });
  return form;
}

async function renderAlias(put, db, name) {
  const [r, tables] = await Promise.all([meta.alias(db, name), meta.tables(db)]);
  if (!r.ok) {
    put(h('h2', {}, `Alias ${db}.${name}`), h('div', { class: 'form-error', role: 'alert' }, r.status === 404 ? `Alias ${db}.${name} does not exist.` : r.message));
    return;
  }
  const a = r.json;
  const perm = can('meta', db);
  const edit = h('button', { type: 'button', class: 'secondary' }, 'Edit alias');
  edit.addEventListener('click', () => openForm(aliasForm(db, tables.ok ? tables.json.filter((t) => !isQueueTable(t)) : [{ table: a.table }], a)));
  gate(edit, perm);
  put(
    h('div', { class: 'detail-head' }, h('h2', { id: 'h-detail' }, `Alias ${db}.${a.alias}`), h('span', { class: `badge ${a.active ? 'ok' : 'idle'}` }, a.active ? 'active' : 'inactive')),
    dl([
      ['table', h('a', { href: `#browse/${enc(db)}/table/${enc(a.table)}` }, a.table)],
      ['comment', a.comment],
      ['revision', a.revision],
      ['created', `${when(a.createdAt)} by ${a.createdBy}`],
      ['updated', `${when(a.updatedAt)} by ${a.updatedBy}`],
    ]),
    h('div', { class: 'actions' }, edit, deleteControl('Delete alias', `${dbPath(db)}/aliases/${enc(a.alias)}`, perm, () => (location.hash = `#browse/${enc(db)}`))),
    h('div', { id: 'form-slot' }),
  );
}

// ---- queues ----

const queuePath = (ns, q) => `/queue/v1/namespaces/${enc(ns)}/queues${q ? `/${enc(q)}` : ''}`;

function queueForm(ns) {
  const errs = new Errors();
  const name = errs.add(field('Queue', h('input', { id: 'queue-name', autocomplete: 'off', spellcheck: 'false' }), { match: /'queue'|Invalid queue|queue name|already/i }));
  const storage = errs.add(field('Storage', h('input', { id: 'queue-storage', value: `datastore://${ns}/`, spellcheck: 'false' }), { match: /storage/i }));
  const partitions = errs.add(field('Partitions', h('input', { id: 'queue-partitions', type: 'number', min: 1, value: 30 }), { match: /partition/i }));
  name.control.addEventListener('input', () => (storage.control.value = `datastore://${ns.toLowerCase().replace(/[^a-z_]/g, '_')}/${name.control.value.trim()}`));
  const submit = h('button', { type: 'submit' }, 'Create queue');
  const fs = h('fieldset', {}, h('legend', {}, `New queue in namespace ${ns}`), name.wrap, storage.wrap, partitions.wrap, errs.formError, h('div', { class: 'actions' }, submit, cancelButton()));
  const form = h('form', { id: 'queue-form', novalidate: true }, fs);
  gate(fs, can('meta', ns));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errs.clear();
    const r = await call('POST', queuePath(ns), { body: { queue: name.control.value.trim(), storage: storage.control.value.trim(), partitions: Number(partitions.control.value) } });
    if (!r.ok) return errs.show(r.message, r.status);
    catalogChanged();
    location.hash = `#browse/${enc(ns)}/queue/${enc(r.json.queue)}`;
  });
  return form;
}

async function renderQueue(put, ns, q) {
  const [r, backing] = await Promise.all([call('GET', queuePath(ns, q)), meta.table(ns, q)]);
  if (!r.ok) {
    put(h('h2', {}, `Queue ${ns}/${q}`), h('div', { class: 'form-error', role: 'alert' }, r.message));
    return;
  }
  const info = r.json;
  const enabled = backing.ok ? backing.json.active : undefined;
  const perm = can('meta', ns);
  const out = h('div', { class: 'queue-result', 'aria-live': 'polite' });
  const act = (label, method, path) => {
    const b = h('button', { type: 'button', class: 'secondary' }, label);
    b.addEventListener('click', async () => {
      const res = await call(method, path);
      out.replaceChildren(resultView(res));
      if (res.ok) {
        catalogChanged();
        if (method === 'DELETE') location.hash = `#browse/${enc(ns)}`;
        else show(route);
      }
    });
    gate(b, perm);
    return b;
  };

  const pollErrs = new Errors();
  const part = pollErrs.add(field('Partition', h('input', { id: 'poll-partition', type: 'number', min: 0, max: info.partitions - 1, value: 0 }), { match: /partition/i }));
  const limit = pollErrs.add(field('Limit', h('input', { id: 'poll-limit', type: 'number', min: 1, max: 1000, value: 100 }), { match: /limit/i }));
  const offset = pollErrs.add(field('After seq (offset)', h('input', { id: 'poll-offset', inputmode: 'numeric' }), { match: /offset/i }));
  const pollOut = h('div', { 'aria-live': 'polite' });
  const pollForm = h(
    'form',
    { novalidate: true, class: 'inline-form' },
    h('fieldset', {}, h('legend', {}, 'Poll a partition'), h('div', { class: 'grid3' }, part.wrap, limit.wrap, offset.wrap), pollErrs.formError, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Poll'))),
  );
  pollForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    pollErrs.clear();
    const res = await call('GET', withQuery(`${queuePath(ns, q)}/partitions/${enc(part.control.value)}/poll`, { limit: limit.control.value, offset: offset.control.value }));
    if (!res.ok) pollErrs.show(res.message, res.status);
    const msgs = res.ok && res.json ? res.json.messages : null;
    pollOut.replaceChildren(resultView(res, { table: msgs ? objectsTable(msgs, { caption: 'messages', columns: ['partition', 'id', 'seq', 'value'] }) : null, summary: res.ok ? `offset ${res.json.offset} · hasNext ${res.json.hasNext}` : '' }));
  });

  const enqErrs = new Errors();
  const msgs = enqErrs.add(
    field('Messages (JSON)', h('textarea', { id: 'enqueue-body', rows: 4, spellcheck: 'false' }, '{"messages": [{"key": "user1", "seq": 1, "value": {"body": "hello"}}]}'), { match: /messages|key|seq/i }),
  );
  const enqOut = h('div', { 'aria-live': 'polite' });
  const enqFs = h('fieldset', {}, h('legend', {}, 'Enqueue'), msgs.wrap, enqErrs.formError, h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Enqueue')));
  const enqForm = h('form', { novalidate: true }, enqFs);
  gate(enqFs, can('queue-write', ns, q));
  enqForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    enqErrs.clear();
    const res = await call('POST', `${queuePath(ns, q)}/messages`, { body: msgs.control.value });
    if (!res.ok) enqErrs.show(res.message, res.status);
    enqOut.replaceChildren(resultView(res, { table: res.ok ? objectsTable(res.json.results || [], { caption: 'enqueued' }) : null }));
  });

  put(
    h('div', { class: 'detail-head' }, h('h2', { id: 'h-detail' }, `Queue ${ns}/${q}`), enabled === undefined ? null : h('span', { class: `badge ${enabled ? 'ok' : 'idle'}` }, enabled ? 'enabled' : 'disabled')),
    dl([
      ['namespace', info.namespace],
      ['partitions', info.partitions],
      ['storage', info.storage],
    ]),
    h('div', { class: 'actions' }, act('Enable', 'PUT', `${queuePath(ns, q)}/enable`), act('Disable', 'PUT', `${queuePath(ns, q)}/disable`), act('Delete queue', 'DELETE', queuePath(ns, q))),
    out,
    pollForm,
    pollOut,
    enqForm,
    enqOut,
  );
}
