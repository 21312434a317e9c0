// chart.js — the console's own SVG line chart: time on x (the last 15 minutes),
// nice round ticks on y, one path per series (gaps where a value is missing),
// and an HTML legend with each series' last value. No library.

const NS = 'http://www.w3.org/2000/svg';
// Okabe-Ito: distinguishable with the common colour-vision deficiencies.
const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#7a5c00', '#000000'];

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

export function colorOf(i) {
  return COLORS[i % COLORS.length];
}

function niceStep(range, ticks) {
  const raw = range / ticks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return step * mag;
}

export function formatValue(v, unit = '') {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  const a = Math.abs(v);
  let s;
  if (a === 0) s = '0';
  else if (a >= 1e9) s = `${(v / 1e9).toFixed(1)}G`;
  else if (a >= 1e6) s = `${(v / 1e6).toFixed(1)}M`;
  else if (a >= 1e4) s = `${(v / 1e3).toFixed(1)}k`;
  else if (a >= 100) s = v.toFixed(0);
  else if (a >= 10) s = v.toFixed(1);
  else if (a >= 0.01) s = v.toFixed(2);
  else s = v.toExponential(1);
  return unit ? `${s} ${unit}` : s;
}

function clock(t) {
  const d = new Date(t);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

// Draws into host (a .chart element) the series [{name, points: [[t, v|null]]}]
// over [now - windowMs, now]. The host keeps the <svg> and a legend list.
export function drawChart(host, { title, unit = '', series, windowMs, now = Date.now() }) {
  const width = Math.max(280, Math.round(host.clientWidth || 480));
  const height = 190;
  const pad = { l: 52, r: 12, t: 10, b: 24 };
  const t0 = now - windowMs;
  let max = 0;
  let samples = 0;
  for (const s of series)
    for (const [t, v] of s.points) {
      if (t < t0 || v === null || !Number.isFinite(v)) continue;
      max = Math.max(max, v);
      samples++;
    }
  const step = niceStep(max > 0 ? max : 1, 4);
  const top = Math.max(step, Math.ceil((max > 0 ? max : 1) / step) * step);
  const x = (t) => pad.l + ((t - t0) / windowMs) * (width - pad.l - pad.r);
  const y = (v) => pad.t + (1 - v / top) * (height - pad.t - pad.b);

  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': `${title}: ${series.length} series over the last ${Math.round(windowMs / 60000)} minutes`,
    class: 'chart-svg',
  });
  const grid = svg('g', { class: 'grid' });
  for (let v = 0; v <= top + step / 2; v += step) {
    grid.append(svg('line', { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v) }));
    grid.append(svg('text', { x: pad.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, formatValue(v)));
  }
  const minutes = windowMs / 60000;
  const tickEvery = (minutes > 10 ? 5 : minutes > 4 ? 2 : 1) * 60000;
  for (let t = Math.ceil(t0 / tickEvery) * tickEvery; t <= now; t += tickEvery) {
    grid.append(svg('line', { x1: x(t), x2: x(t), y1: pad.t, y2: height - pad.b, class: 'vtick' }));
    grid.append(svg('text', { x: x(t), y: height - 6, 'text-anchor': 'middle' }, clock(t)));
  }
  root.append(grid);

  series.forEach((s, i) => {
    let d = '';
    let pen = false;
    for (const [t, v] of s.points) {
      if (t < t0) continue;
      if (v === null || !Number.isFinite(v)) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    }
    if (d) root.append(svg('path', { d, fill: 'none', stroke: colorOf(i), 'stroke-width': 2, 'data-series': s.name }));
  });

  const legend = document.createElement('ul');
  legend.className = 'legend';
  series.forEach((s, i) => {
    const last = [...s.points].reverse().find(([, v]) => v !== null && Number.isFinite(v));
    const seen = s.points.filter(([t, v]) => t >= t0 && v !== null && Number.isFinite(v)).map(([, v]) => v);
    const peak = seen.length ? Math.max(...seen) : null;
    const li = document.createElement('li');
    li.dataset.series = s.name;
    li.dataset.value = last ? String(last[1]) : '';
    li.dataset.max = peak === null ? '' : String(peak);
    li.title = `${s.name}: now ${formatValue(last ? last[1] : null, unit)}, peak ${formatValue(peak, unit)}`;
    const sw = svg('svg', { width: 12, height: 12, 'aria-hidden': 'true', class: 'swatch' });
    sw.append(svg('rect', { width: 12, height: 12, rx: 2, fill: colorOf(i) }));
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = s.name;
    const val = document.createElement('span');
    val.className = 'value';
    val.textContent = formatValue(last ? last[1] : null, unit);
    li.append(sw, name, val);
    legend.append(li);
  });
  if (series.length === 0) {
    const li = document.createElement('li');
    li.className = 'muted';
    li.textContent = 'no data yet';
    legend.append(li);
  }
  host.dataset.samples = String(samples);
  host.replaceChildren(root, legend);
}
