// query.js — the Query view: get, scan (index, direction, ranges and filters
// builder, limit, pages through `offset`), count, seek, agg, ids, multihop and
// the query document; results as a table, as raw JSON and as a curl line.

import { h, field, Errors, objectsTable, edgesTable, options, nextId, resultView } from './dom.js';
import { call, meta, bus, dbPath, tablePath, enc, withQuery } from './api.js';

// Database and table inputs (with suggestions from the catalog) that resolve
// the table, or the table behind an alias, and report it through onTable.
export function targetPicker(prefix, onTable) {
  const dbList = h('datalist', { id: `${prefix}-db-list` });
  const tList = h('datalist', { id: `${prefix}-table-list` });
  const errs = new Errors();
  const db = errs.add(field('Database', h('input', { id: `${prefix}-db`, list: dbList.id, autocomplete: 'off', spellcheck: 'false' }), { match: /database/i }));
  const table = errs.add(field('Table or alias', h('input', { id: `${prefix}-table`, list: tList.id, autocomplete: 'off', spellcheck: 'false' }), { match: /table|alias|label/i }));
  const state = { desc: null, alias: null };
  const fillDatabases = async () => {
    const r = await meta.databases();
    dbList.replaceChildren(...(r.ok ? r.json.map((d) => h('option', { value: d.database })) : []));
  };
  const fillTables = async () => {
    const name = db.control.value.trim();
    if (!name) return tList.replaceChildren();
    const [t, a] = await Promise.all([meta.tables(name), meta.aliases(name)]);
    tList.replaceChildren(
      ...(t.ok ? t.json.map((x) => h('option', { value: x.table }, x.type)) : []),
      ...(a.ok ? a.json.map((x) => h('option', { value: x.alias }, `alias of ${x.table}`)) : []),
    );
  };
  const resolve = async () => {
    errs.clear();
    const d = db.control.value.trim();
    const t = table.control.value.trim();
    state.desc = null;
    state.alias = null;
    if (d && t) {
      const r = await meta.resolve(d, t);
      if (r.ok) {
        state.desc = r.table;
        state.alias = r.alias || null;
      } else errs.show(r.message);
    }
    onTable(state.desc);
  };
  db.control.addEventListener('change', () => {
    fillTables();
    resolve();
  });
  table.control.addEventListener('change', resolve);
  bus.addEventListener('catalog-changed', () => {
    fillDatabases();
    fillTables();
  });
  bus.addEventListener('key-changed', () => {
    fillDatabases();
    fillTables();
  });
  fillDatabases();
  const el = h('div', { class: 'grid2 target' }, db.wrap, table.wrap, dbList, tList, errs.formError);
  return {
    el,
    state,
    db: () => db.control.value.trim(),
    table: () => table.control.value.trim(),
    async set(d, t) {
      if (d === db.control.value && t === table.control.value && state.desc) return;
      db.control.value = d || '';
      table.control.value = t || '';
      await fillTables();
      await resolve();
    },
  };
}

const RANGE_OPS = ['eq', 'gt', 'gte', 'lt', 'lte', 'bt'];
const FILTER_OPS = [...RANGE_OPS, 'in'];

// Rows of field:op:value, joined with ';' as the server reads them.
function conditions(kind, fieldNames) {
  const ops = kind === 'ranges' ? RANGE_OPS : FILTER_OPS;
  const list = h('div', { class: 'rows' });
  const rows = [];
  const add = h('button', { type: 'button', class: 'secondary small', id: `q-add-${kind === 'ranges' ? 'range' : 'filter'}` }, kind === 'ranges' ? 'Add range' : 'Add filter');
  add.addEventListener('click', () => {
    const n = rows.length + 1;
    const name = kind === 'ranges' ? `Range ${n}` : `Filter ${n}`;
    const f = fieldNames.length
      ? h('select', { class: 'cond-field', id: nextId('cf') }, options(fieldNames))
      : h('input', { class: 'cond-field', id: nextId('cf'), spellcheck: 'false' });
    const op = h('select', { class: 'cond-op', id: nextId('co') }, options(ops));
    const v1 = h('input', { class: 'cond-value', id: nextId('cv'), spellcheck: 'false' });
    const v2 = h('input', { class: 'cond-value2', id: nextId('cv'), spellcheck: 'false' });
    const v2wrap = h('span', { class: 'mini', hidden: true }, h('label', { for: v2.id }, 'and'), v2);
    op.addEventListener('change', () => {
      v2wrap.hidden = op.value !== 'bt';
      v1.placeholder = op.value === 'in' ? 'a,b,c' : '';
    });
    const row = { value: () => (v1.value === '' ? null : `${f.value}:${op.value}:${op.value === 'bt' ? `${v1.value},${v2.value}` : v1.value}`) };
    const rm = h('button', { type: 'button', class: 'secondary small', 'aria-label': `Remove ${name.toLowerCase()}` }, 'Remove');
    const el = h(
      'div',
      { class: 'row-item cond' },
      h('span', { class: 'mini' }, h('label', { for: f.id }, `${name} field`), f),
      h('span', { class: 'mini' }, h('label', { for: op.id }, 'op'), op),
      h('span', { class: 'mini' }, h('label', { for: v1.id }, 'value'), v1),
      v2wrap,
      rm,
    );
    rm.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      el.remove();
      add.focus();
    });
    rows.push(row);
    list.append(el);
    f.focus();
  });
  const control = h('div', { class: 'row-list', id: `q-${kind}`, tabindex: -1 }, list, add);
  return {
    control,
    value: () =>
      rows
        .map((r) => r.value())
        .filter(Boolean)
        .join(';'),
  };
}

const OPS = [
  ['scan', 'scan — read an index'],
  ['get', 'get — edges by source and target'],
  ['count', 'count — edges of a start'],
  ['seek', 'seek — read a cache'],
  ['agg', 'agg — read a group'],
  ['ids', 'ids — multi-edges by id'],
  ['multihop', 'multihop — two hops'],
  ['query', 'query document'],
];

let picker;
let opSelect;
let opFields;
let resultEl;
let errs;
let current; // {build(offset) -> {method, path, body}, render(r)}
let pages; // offsets of the pages read so far: [null, token2, ...]
let pageIndex;

export function mount(el) {
  picker = targetPicker('q', () => renderOpFields());
  opSelect = h('select', { id: 'q-op' }, options(OPS, 'scan'));
  opSelect.addEventListener('change', () => renderOpFields());
  opFields = h('div', { class: 'op-fields' });
  resultEl = h('div', { id: 'query-result', 'aria-live': 'polite' });
  errs = new Errors();
  const run = h('button', { type: 'submit', id: 'q-run' }, 'Run');
  const form = h(
    'form',
    { id: 'query-form', novalidate: true },
    h('fieldset', {}, h('legend', {}, 'Read'), picker.el, field('Operation', opSelect).wrap, opFields, errs.formError, h('div', { class: 'actions' }, run)),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    pages = [null];
    pageIndex = 0;
    runPage();
  });
  el.append(h('h2', { id: 'h-query' }, 'Query'), form, resultEl);
  renderOpFields();
}

export async function show(parts) {
  const [db, table] = parts;
  if (db && table) await picker.set(db, table);
}

function input(id, label, attrs = {}, opts = {}) {
  return errs.add(field(label, h('input', { id, autocomplete: 'off', spellcheck: 'false', ...attrs }), opts));
}

function directionField() {
  return errs.add(field('Direction', h('select', { id: 'q-direction' }, options(['OUT', 'IN'], 'OUT')), { match: /direction/i }));
}

function renderOpFields() {
  errs.fields = [];
  errs.clear();
  const op = opSelect.value;
  const desc = picker.state.desc;
  const s = (desc && desc.schema) || {};
  const props = (s.properties || []).map((p) => p.name);
  const propOrder = props;
  const nodes = [];
  const db = () => picker.db();
  const table = () => picker.table();
  const base = () => tablePath(db(), table());
  const frame = (r) => {
    const j = r.json;
    if (!r.ok || !j || !Array.isArray(j.edges)) return { table: null };
    return {
      table: edgesTable(j.edges, propOrder, `${op} results`),
      summary: `count ${j.count} · hasNext ${j.hasNext}${j.total !== undefined ? ` · total ${j.total}` : ''}`,
    };
  };
  if (!desc && op !== 'query' && op !== 'multihop') nodes.push(h('p', { class: 'muted' }, 'Name a database and a table (or alias) above.'));

  if (op === 'scan') {
    const indexes = s.indexes || [];
    const index = errs.add(field('Index', h('select', { id: 'q-index' }, options(indexes.map((i) => i.index))), { match: /index/i }));
    const start = input('q-start', 'Start', {}, { match: /start/i });
    const dir = directionField();
    const limit = input('q-limit', 'Limit', { type: 'number', min: 1, max: 1000, value: 25 }, { match: /limit/i });
    const rangeFields = () => {
      const ix = indexes.find((i) => i.index === index.control.value);
      return ix ? ix.fields.map((f) => f.field) : [];
    };
    let ranges = conditions('ranges', rangeFields());
    const rangesField = errs.add(field('Ranges', ranges.control, { match: /range|`in`/i, hint: 'Bound the index read: equality on leading index fields, any operator on the last one.' }));
    index.control.addEventListener('change', () => {
      const fresh = conditions('ranges', rangeFields());
      ranges.control.replaceWith(fresh.control);
      ranges = fresh;
      rangesField.control = fresh.control;
    });
    const filters = conditions('filters', [...props, 'version', 'source', 'target']);
    const filtersField = errs.add(field('Filters', filters.control, { match: /filter|unknown field/i }));
    const total = field('Count the total (features=total)', h('input', { type: 'checkbox', id: 'q-total' }), { check: true, match: /features/i });
    errs.add(total);
    nodes.push(h('div', { class: 'grid2' }, index.wrap, start.wrap, dir.wrap, limit.wrap), rangesField.wrap, filtersField.wrap, total.wrap);
    current = {
      paged: true,
      build: (offset) => ({
        method: 'GET',
        path: withQuery(`${base()}/edges/scan/${enc(index.control.value)}`, [
          ['start', start.control.value],
          ['direction', dir.control.value],
          ['limit', limit.control.value],
          ['ranges', ranges.value()],
          ['filters', filters.value()],
          ['features', total.control.checked ? 'total' : ''],
          ['offset', offset],
        ]),
      }),
      render: frame,
    };
  } else if (op === 'get') {
    const source = input('q-source', 'Sources (comma separated)', {}, { match: /source/i });
    const target = input('q-target', 'Targets (comma separated)', {}, { match: /target|edges requested/i });
    const filters = conditions('filters', [...props, 'version']);
    const filtersField = errs.add(field('Filters', filters.control, { match: /filter|unknown field/i }));
    nodes.push(h('div', { class: 'grid2' }, source.wrap, target.wrap), filtersField.wrap);
    current = {
      build: () => ({
        method: 'GET',
        path: withQuery(`${base()}/edges/get`, [
          ['source', source.control.value],
          ['target', target.control.value],
          ['filters', filters.value()],
        ]),
      }),
      render: frame,
    };
  } else if (op === 'count') {
    const start = input('q-start', 'Start', {}, { match: /start/i });
    const dir = directionField();
    nodes.push(h('div', { class: 'grid2' }, start.wrap, dir.wrap));
    current = {
      build: () => ({ method: 'GET', path: withQuery(`${base()}/edges/count`, [['start', start.control.value], ['direction', dir.control.value]]) }),
      render: (r) => ({ table: r.ok && r.json ? objectsTable([r.json], { caption: 'count', columns: ['start', 'direction', 'count'] }) : null }),
    };
  } else if (op === 'seek') {
    const caches = s.caches || [];
    const cache = errs.add(field('Cache', h('select', { id: 'q-cache' }, options(caches.map((c) => c.cache))), { match: /cache/i }));
    const start = input('q-start', 'Start', {}, { match: /start/i });
    const dir = directionField();
    const limit = input('q-limit', 'Limit (empty: the cache limit)', { type: 'number', min: 1 }, { match: /limit/i });
    const first = caches[0];
    const ranges = conditions('ranges', first ? first.fields.map((f) => f.field) : []);
    const rangesField = errs.add(field('Ranges', ranges.control, { match: /range/i }));
    nodes.push(h('div', { class: 'grid2' }, cache.wrap, start.wrap, dir.wrap, limit.wrap), rangesField.wrap);
    current = {
      paged: true,
      build: (offset) => ({
        method: 'GET',
        path: withQuery(`${base()}/edges/seek/${enc(cache.control.value)}`, [
          ['start', start.control.value],
          ['direction', dir.control.value],
          ['limit', limit.control.value],
          ['ranges', ranges.value()],
          ['offset', offset],
        ]),
      }),
      render: frame,
    };
  } else if (op === 'agg') {
    const groups = ['__count__', ...(s.groups || []).map((g) => g.group)];
    const group = errs.add(field('Group', h('select', { id: 'q-group' }, options(groups)), { match: /group/i }));
    const start = input('q-start', 'Start (several: comma separated)', {}, { match: /start/i });
    const dir = directionField();
    const limit = input('q-limit', 'Limit (cells per start)', { type: 'number', min: 1 }, { match: /limit/i });
    const groupFields = [...new Set((s.groups || []).flatMap((g) => (g.fields || []).map((f) => f.name)))];
    const ranges = conditions('ranges', groupFields);
    const rangesField = errs.add(field('Ranges', ranges.control, { match: /range/i }));
    nodes.push(h('div', { class: 'grid2' }, group.wrap, start.wrap, dir.wrap, limit.wrap), rangesField.wrap);
    current = {
      build: () => ({
        method: 'GET',
        path: withQuery(`${base()}/edges/agg/${enc(group.control.value)}`, [
          ...start.control.value.split(',').map((v) => ['start', v.trim()]),
          ['direction', dir.control.value],
          ['limit', limit.control.value],
          ['ranges', ranges.value()],
        ]),
      }),
      // One row per group (its start and value), then one per cell (its key fields and value).
      render: (r) => {
        if (!r.ok || !r.json || !Array.isArray(r.json.groups)) return { table: null };
        const groups = r.json.groups;
        const keys = [...new Set(groups.flatMap((g) => (g.cells || []).flatMap((c) => Object.keys(c.key || {}))))];
        const rows = groups.flatMap((g) => [{ start: g.start, value: g.value, hasNext: g.hasNext }, ...(g.cells || []).map((c) => ({ ...c.key, value: c.value }))]);
        return { table: objectsTable(rows, { caption: 'groups and cells', columns: [...new Set(['start', ...keys, 'value', 'hasNext'])] }), summary: `count ${r.json.count}` };
      },
    };
  } else if (op === 'ids') {
    const ids = input('q-ids', 'Ids (comma separated)', {}, { match: /ids?\b/i });
    const filters = conditions('filters', [...props, 'version']);
    const filtersField = errs.add(field('Filters', filters.control, { match: /filter/i }));
    nodes.push(ids.wrap, filtersField.wrap);
    current = {
      build: () => ({ method: 'GET', path: withQuery(`${base()}/multi-edges/ids`, [['ids', ids.control.value], ['filters', filters.value()]]) }),
      render: frame,
    };
  } else if (op === 'multihop') {
    const t = table() || 'follows';
    const hop = (s.caches || [])[0] ? { table: t, cache: s.caches[0].cache, direction: 'OUT' } : { table: t, index: ((s.indexes || [])[0] || {}).index || 'INDEX', direction: 'OUT' };
    const template = { start: 'alice', hops: [hop, { ...hop }], dedup: true, excludeStart: true, order: 'hop', limit: 100 };
    const body = errs.add(field('Body (JSON)', h('textarea', { id: 'q-body', rows: 10, spellcheck: 'false' }, JSON.stringify(template, null, 2)), { match: /hop|start|limit|filter|order/i }));
    nodes.push(h('p', { class: 'hint' }, `POST ${dbPath(db() || '{database}')}/edges/multihop`), body.wrap);
    current = { build: () => ({ method: 'POST', path: `${dbPath(db())}/edges/multihop`, body: body.control.value }), render: frame };
  } else if (op === 'query') {
    const template = {
      query: [{ type: 'COUNT', name: 'c', database: db() || 'db', table: table() || 'table', source: { type: 'VALUE', value: ['alice'] }, direction: 'OUT', include: true }],
    };
    const body = errs.add(field('Query document (JSON)', h('textarea', { id: 'q-body', rows: 12, spellcheck: 'false' }, JSON.stringify(template, null, 2)), { match: /item|query|ref|type/i }));
    nodes.push(body.wrap);
    current = {
      build: () => ({ method: 'POST', path: '/graph/v3/query', body: body.control.value }),
      render: (r) => {
        if (!r.ok || !r.json || !Array.isArray(r.json.items)) return { table: null };
        return {
          table: h(
            'div',
            {},
            r.json.items.map((it) => [h('h3', {}, `${it.name} · ${it.rows} rows`), it.data.length ? objectsTable(it.data, { caption: it.name }) : h('p', { class: 'muted' }, 'No rows.')]),
          ),
        };
      },
    };
  }
  opFields.replaceChildren(...nodes);
}

async function runPage() {
  if (!current) return;
  errs.clear();
  const req = current.build(pages[pageIndex]);
  const r = await call(req.method, req.path, { body: req.body });
  if (!r.ok) errs.show(r.message, r.status);
  const { table, summary } = current.render(r);
  const nodes = [];
  if (current.paged && r.ok) {
    const prev = h('button', { type: 'button', id: 'q-prev', class: 'secondary', disabled: pageIndex === 0 }, 'Previous page');
    const next = h('button', { type: 'button', id: 'q-next', class: 'secondary', disabled: !(r.json && r.json.hasNext && r.json.offset) }, 'Next page');
    prev.addEventListener('click', () => {
      pageIndex--;
      runPage().then(() => document.getElementById('q-prev')?.focus());
    });
    next.addEventListener('click', () => {
      pages.length = pageIndex + 1;
      pages.push(r.json.offset);
      pageIndex++;
      runPage().then(() => {
        const b = document.getElementById('q-next');
        (b && !b.disabled ? b : document.getElementById('q-prev'))?.focus();
      });
    });
    nodes.push(h('div', { class: 'pager' }, prev, h('span', { id: 'q-page', 'aria-live': 'polite' }, `page ${pageIndex + 1}`), next));
  }
  resultEl.replaceChildren(resultView(r, { table, summary }), ...nodes);
}
